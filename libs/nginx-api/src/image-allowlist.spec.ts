import { celEnv, isCelError, parse, plan } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { describe, expect, it } from 'vitest';
import {
  ImageAllowlistError,
  imageAllowed,
  imageAllowlistErrors,
  imageAllowlistRules,
  parseImageAllowlist,
  type ImageAllowlist,
} from './image-allowlist.js';

const DIGEST = `sha256:${'0123456789abcdef'.repeat(4)}`;
const allowlist = parseImageAllowlist(
  ' docker.io/library/nginx, registry.example.com/web ,ghcr.io/acme/,localhost:5000, quay.io/team/app:1.0, index.docker.io/bitnami/,,',
)!;

/** [image, allowed under `allowlist`]: the table both the TypeScript check and the CEL rules must answer alike. */
const CASES: [string, boolean][] = [
  // docker.io/library/nginx: every spelling of the official image, its tags and digests
  ['nginx', true],
  ['nginx:1.27', true],
  ['nginx:1.27-alpine', true],
  [`nginx@${DIGEST}`, true],
  [`nginx:1.27@${DIGEST}`, true],
  ['library/nginx', true],
  ['docker.io/nginx', true],
  ['docker.io/library/nginx:1.27', true],
  ['index.docker.io/nginx', true],
  ['index.docker.io/library/nginx:stable', true],
  ['library/nginx/sub', true], // a repository below an allowed one
  // ... but not names that only start alike, nor a user's repository of the same name
  ['nginxx', false],
  ['nginx-unprivileged', false],
  ['nginx/nginx', false], // docker.io/nginx/nginx
  ['nginx/sub', false], // docker.io/nginx/sub, not docker.io/library/nginx/sub
  ['docker.io/nginxinc/nginx-unprivileged', false],
  ['Nginx', false],
  ['ngínx', false],
  // registry.example.com/web on path boundaries
  ['registry.example.com/web', true],
  ['registry.example.com/web:2', true],
  [`registry.example.com/web@${DIGEST}`, true],
  ['registry.example.com/web/app:2', true],
  ['registry.example.com/website', false],
  ['registry.example.com/web-app', false],
  ['registry.example.com/we', false],
  ['registry.example.com/other/web', false],
  ['registry.example.com.evil.example/web', false],
  ['registry.example.com:443/web', false], // another port is another registry
  ['Registry.example.com/web', false], // hosts are compared as written, in lower case
  ['evil.example/registry.example.com/web', false],
  ['registry.example.com/web/../../evil/x', false],
  // ghcr.io/acme/: anything below the path, nothing beside it
  ['ghcr.io/acme/app', true],
  ['ghcr.io/acme/team/app:1', true],
  ['ghcr.io/acme', false],
  ['ghcr.io/acmecorp/app', false],
  // localhost:5000 (a bare registry): everything on it, not on localhost itself or another port
  ['localhost:5000/app', true],
  ['localhost:5000/a/b:c', true],
  ['localhost/app', false],
  ['localhost:50000/app', false],
  // quay.io/team/app:1.0: that tag (and its digest), no other
  ['quay.io/team/app:1.0', true],
  [`quay.io/team/app:1.0@${DIGEST}`, true],
  ['quay.io/team/app:1.01', false],
  ['quay.io/team/app:1.0-debug', false],
  ['quay.io/team/app', false],
  // index.docker.io/bitnami/ is docker.io/bitnami/
  ['bitnami/nginx', true],
  ['docker.io/bitnami/nginx:1', true],
  ['index.docker.io/bitnami/redis', true],
  ['bitnami', false], // docker.io/library/bitnami
  // not references at all
  ['', false],
  ['nginx:', false],
  ['nginx:a b', false],
  [' nginx', false],
  ['nginx\n', false],
  ['0123456789abcdef'.repeat(4), false],
  ['[::1]:5000/app', false],
];

/** The generated rules, planned once per allow-list by a CEL evaluator with the strings extension. */
const planned = new Map<ImageAllowlist, ((bindings: { self: string }) => unknown)[]>();
function celAllows(image: string, list: ImageAllowlist): boolean {
  if (!planned.has(list))
    planned.set(
      list,
      imageAllowlistRules(list).map((rule) => plan(celEnv({ funcs: strings }), parse(rule.rule))),
    );
  return planned.get(list)!.every((evaluate) => {
    const result = evaluate({ self: image });
    if (isCelError(result)) throw new Error(`CEL error for ${JSON.stringify(image)}: ${result.message}`);
    return result === true;
  });
}

describe('parseImageAllowlist', () => {
  it('normalises, trims, drops empty entries and duplicates', () => {
    expect(allowlist.prefixes).toEqual([
      'docker.io/library/nginx',
      'registry.example.com/web',
      'ghcr.io/acme/',
      'localhost:5000/',
      'quay.io/team/app:1.0',
      'docker.io/bitnami/',
    ]);
    expect(parseImageAllowlist('docker.io/nginx,docker.io/library/nginx,index.docker.io/nginx')).toEqual({
      prefixes: ['docker.io/library/nginx'],
    });
    expect(parseImageAllowlist('docker.io,docker.io/,docker.io/library/')).toEqual({
      prefixes: ['docker.io/', 'docker.io/library/'],
    });
  });

  it('means no allow-list when it names nothing', () => {
    expect(parseImageAllowlist(undefined)).toBeUndefined();
    expect(parseImageAllowlist('')).toBeUndefined();
    expect(parseImageAllowlist(' , ,')).toBeUndefined();
  });

  it.each([
    ['nginx', /must start with a registry host/],
    ['library/nginx', /must start with a registry host/],
    ['Registry.example.com/web', /must start with a registry host in lower case/],
    ['registry_x.example.com/web', /must start with a registry host/],
    ['registry.example.com/Web', /is not an image reference/],
    ['registry.example.com/web:', /is not an image reference/],
    ['registry.example.com//', /is not a registry or image path/],
    ['registry.example.com/we b/', /is not a registry or image path/],
    ['docker.io/library', /names the image docker.io\/library\/library; write docker.io\/library\//],
    ["registry.example.com/web'||true", /is not an image reference/],
  ])('refuses %j', (entry, message) => {
    expect(() => parseImageAllowlist(`docker.io/library/nginx,${entry}`)).toThrow(ImageAllowlistError);
    expect(() => parseImageAllowlist(entry)).toThrow(message);
  });
});

describe('imageAllowed and the CRD rules generated from the same allow-list', () => {
  it.each(CASES)('%j: %s', (image, allowed) => {
    expect(imageAllowed(image, allowlist)).toBe(allowed);
    expect(imageAllowlistErrors(image, allowlist).length === 0).toBe(allowed);
    expect(celAllows(image, allowlist)).toBe(allowed);
  });

  it('agree on the default image, which an Nginx without spec.image gets where it is allowed', () => {
    const officialOnly = parseImageAllowlist('docker.io/library/')!;
    expect(imageAllowlistErrors(undefined, officialOnly)).toEqual([]);
    expect(celAllows('nginx:latest', officialOnly)).toBe(true);
    const elsewhere = parseImageAllowlist('registry.example.com/')!;
    expect(imageAllowlistErrors(undefined, elsewhere)).toEqual([
      {
        field: 'spec.image',
        reason: 'FieldValueRequired',
        message:
          'Required value: the default image nginx:latest is under none of the allowed image prefixes (registry.example.com/)',
      },
    ]);
    expect(celAllows('nginx:latest', elsewhere)).toBe(false);
  });

  it('agree on every registry a one-prefix allow-list names', () => {
    const lists = ['docker.io/', 'docker.io/library/', 'localhost/', 'registry.example.com'].map((prefix) =>
      parseImageAllowlist(prefix)!,
    );
    for (const [image] of CASES)
      for (const one of lists)
        expect(celAllows(image, one), `${image} under ${one.prefixes[0]}`).toBe(imageAllowed(image, one));
  });
});

describe('imageAllowlistErrors', () => {
  it('names spec.image: Invalid for what is no reference, Forbidden for what is not allowed', () => {
    expect(imageAllowlistErrors('Nginx', allowlist)).toEqual([
      {
        field: 'spec.image',
        reason: 'FieldValueInvalid',
        message: expect.stringMatching(/^Invalid value: "Nginx": spec.image must be an image reference/),
      },
    ]);
    const [forbidden] = imageAllowlistErrors('evil/x', allowlist);
    expect(forbidden).toMatchObject({ field: 'spec.image', reason: 'FieldValueForbidden' });
    expect(forbidden!.message).toBe(
      'Forbidden: spec.image "evil/x" (docker.io/evil/x) is under none of the allowed image prefixes: ' +
        allowlist.prefixes.join(', '),
    );
  });

  it('says nothing without an allow-list, or about a value that is not a string', () => {
    expect(imageAllowlistErrors('evil/x', undefined)).toEqual([]);
    expect(imageAllowlistErrors(42, allowlist)).toEqual([]);
    expect(imageAllowlistErrors(null, allowlist)).toEqual([]);
  });
});

describe('imageAllowlistRules', () => {
  it('are two rules on spec.image with the API server reasons, the prefixes in the message', () => {
    const [reference, allowed] = imageAllowlistRules(parseImageAllowlist('registry.example.com/web')!);
    expect(reference).toMatchObject({ reason: 'FieldValueInvalid' });
    expect(allowed).toMatchObject({ reason: 'FieldValueForbidden' });
    expect(allowed!.message).toMatch(
      /^must name an image under one of the allowed prefixes: registry.example.com\/web /,
    );
    expect(allowed!.rule).toContain(
      "n == 'registry.example.com/web' || n.startsWith('registry.example.com/web/') || " +
        "n.startsWith('registry.example.com/web:') || n.startsWith('registry.example.com/web@')",
    );
  });
});
