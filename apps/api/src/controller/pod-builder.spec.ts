import { TEMPLATE_FIELDS, podTemplateOf, revisionOf, templateFields, type Nginx } from '@ngx/nginx-api';
import { describe, expect, it } from 'vitest';
import { podFor } from './pod-builder.js';

const nginx: Nginx = {
  apiVersion: 'mycompany.com/v1',
  kind: 'Nginx',
  metadata: { name: 'web', namespace: 'default', uid: 'uid-1' },
  spec: { replicas: 1 },
};

describe('podFor', () => {
  it('runs every template field: each one set changes the pod it builds', () => {
    const plain = podTemplateOf(nginx.spec);
    const podOf = (template = plain) => podFor(nginx, template, revisionOf(plain)).spec;
    for (const name of TEMPLATE_FIELDS) {
      const template = podTemplateOf({ ...nginx.spec, [name]: templateFields[name].example });
      expect(podOf(template), name).not.toEqual(podOf());
    }
  });
});
