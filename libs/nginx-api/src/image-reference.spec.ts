import { describe, expect, it } from 'vitest';
import { isImageReference, normaliseImage } from './image-reference.js';

describe('normaliseImage', () => {
  it.each([
    ['nginx', 'docker.io/library/nginx'],
    ['nginx:1.27', 'docker.io/library/nginx:1.27'],
    ['nginx@sha256:' + 'a'.repeat(64), 'docker.io/library/nginx@sha256:' + 'a'.repeat(64)],
    ['library/nginx', 'docker.io/library/nginx'],
    ['bitnami/nginx:1', 'docker.io/bitnami/nginx:1'],
    ['docker.io/nginx', 'docker.io/library/nginx'],
    ['docker.io/nginx:1.27', 'docker.io/library/nginx:1.27'],
    ['index.docker.io/nginx', 'docker.io/library/nginx'],
    ['index.docker.io/bitnami/nginx', 'docker.io/bitnami/nginx'],
    ['registry.example.com/web', 'registry.example.com/web'],
    ['registry.example.com/web/app:2', 'registry.example.com/web/app:2'],
    ['localhost/app', 'localhost/app'],
    ['localhost:5000/app', 'localhost:5000/app'],
    ['Registry/app', 'Registry/app'], // an upper-case first component is a host
    ['localhost', 'docker.io/library/localhost'], // no slash: a name on Docker Hub
    ['registry.example.com', 'docker.io/library/registry.example.com'],
    ['nginx/registry.example.com/x', 'docker.io/nginx/registry.example.com/x'],
  ])('%s is %s', (image, named) => {
    expect(normaliseImage(image)).toBe(named);
  });
});

describe('isImageReference', () => {
  it.each([
    'nginx',
    'nginx:1.27-alpine',
    'nginx@sha256:' + 'a'.repeat(64),
    'nginx:1.27@sha256:' + 'a'.repeat(64),
    'registry.example.com:5000/team/app_x__y.z-w:v1.2',
    'localhost:5000/app',
    'Registry.Example.com/app',
    'a'.repeat(63),
  ])('takes %s', (image) => {
    expect(isImageReference(image)).toBe(true);
  });

  it.each([
    '',
    'Nginx',
    'nginx:',
    'nginx:tag with space',
    'nginx:' + 'x'.repeat(129),
    'nginx@sha256:short',
    ' nginx',
    'nginx\n',
    'registry.example.com/web/../evil',
    'registry.example.com//web',
    'registry.example.com/web/',
    'registry.example.com/-web',
    'registry.example.com:port/web',
    'a_b.c/x', // a registry-less path distribution reads, refused as a host with "_"
    '[::1]:5000/app', // IP-literal registries are not taken
    'a'.repeat(64), // a bare image ID
    'nginx:1.27/x',
    'ngínx',
  ])('refuses %j', (image) => {
    expect(isImageReference(image)).toBe(false);
  });
});
