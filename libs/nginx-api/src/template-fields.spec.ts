import { describe, expect, it } from 'vitest';
import { podTemplateOf, podTemplateSchema, specWithTemplate } from './pod-template.js';
import { revisionOf } from './template-revision.js';
import { nginxSpecSchema, type JsonSchema } from './schema.js';
import {
  NON_TEMPLATE_FIELDS,
  TEMPLATE_FIELDS,
  templateFields,
  type TemplateField,
} from './template-fields.js';
import type { NginxSpec } from './types.js';
import { validateNginx } from './validation.js';

const examples = Object.fromEntries(TEMPLATE_FIELDS.map((name) => [name, templateFields[name].example]));
const nginx = (spec: Partial<NginxSpec>) => ({
  apiVersion: 'mycompany.com/v1',
  kind: 'Nginx',
  metadata: { name: 'web' },
  spec: { replicas: 1, ...spec },
});

function schemaAt(path: string): JsonSchema | undefined {
  let schema: JsonSchema | undefined = nginxSpecSchema;
  for (const key of path.split('.')) schema = schema?.properties?.[key];
  return schema;
}

describe('the pod template table', () => {
  it('names spec fields the schema declares, each example valid there', () => {
    for (const name of TEMPLATE_FIELDS) {
      expect(nginxSpecSchema.properties, name).toHaveProperty([name]);
      expect(validateNginx(nginx({ [name]: templateFields[name].example })), name).toEqual([]);
    }
  });

  it("with the fields outside the template, covers the schema's spec fields each once", () => {
    const fields = [...TEMPLATE_FIELDS, ...Object.keys(NON_TEMPLATE_FIELDS)];
    expect(fields.sort()).toEqual(Object.keys(nginxSpecSchema.properties!).sort());
  });

  it('gives every field a place in the template: each example is kept, and changes the revision', () => {
    const plain = revisionOf(podTemplateOf({ replicas: 1 }));
    for (const name of TEMPLATE_FIELDS) {
      const template = podTemplateOf({ replicas: 1, [name]: templateFields[name].example });
      expect(template[name], name).toEqual(templateFields[name].example);
      expect(revisionOf(template), name).not.toBe(plain);
    }
  });

  it('fills the defaults, and a rollback writes back exactly the template fields', () => {
    const template = podTemplateOf({ replicas: 1 });
    expect(Object.keys(template)).toEqual(
      TEMPLATE_FIELDS.filter((name) => 'default' in templateFields[name]),
    );
    const spec: NginxSpec = { replicas: 3, paused: true, ...examples };
    expect(podTemplateOf(spec)).toEqual(examples);
    expect(specWithTemplate(spec, template)).toEqual({ replicas: 3, paused: true, ...template });
  });

  it('names form inputs under their own field that the schema declares', () => {
    for (const name of TEMPLATE_FIELDS)
      for (const input of templateFields[name].inputs) {
        expect(input.split('.')[0], input).toBe(name);
        expect(schemaAt(input), input).toBeDefined();
      }
  });

  it("names the create form's section of a field exactly when a form edits it", () => {
    for (const name of TEMPLATE_FIELDS) {
      const field: Pick<TemplateField<typeof name>, 'inputs' | 'section'> = templateFields[name];
      expect(field.section !== undefined, name).toBe(field.inputs.length > 0);
    }
  });

  it("describes a revision's template with the spec's schemas of exactly the table's fields", () => {
    expect(Object.keys(podTemplateSchema.properties!)).toEqual(TEMPLATE_FIELDS);
    for (const name of TEMPLATE_FIELDS)
      expect(podTemplateSchema.properties![name]).toBe(nginxSpecSchema.properties![name]);
    expect(podTemplateSchema.required).toEqual(['image', 'port']);
  });
});

describe('the scheduling fields and existing revisions', () => {
  // Revisions computed before the scheduling fields existed (commit 206457b): an Nginx without them must keep its
  // revision, or an upgrade of the controller would roll every pod of every Nginx.
  it('leaves the revision of a spec without them unchanged', () => {
    expect(revisionOf(podTemplateOf({ replicas: 1 }))).toBe('03m0a5u18zbzez');
    const full: NginxSpec = {
      replicas: 1,
      image: 'nginx:1.27',
      port: 8080,
      config: 'server { listen 8080; }\n',
      healthCheckPath: '/h',
      resources: { requests: { cpu: '50m' } },
      priorityClassName: 'high',
    };
    expect(revisionOf(podTemplateOf(full))).toBe('0k4s2n80g4bs4o');
  });

  it('reads empty nodeSelector, tolerations and affinity as unset, but [] spread constraints as a choice', () => {
    const plain = revisionOf(podTemplateOf({ replicas: 1 }));
    expect(revisionOf(podTemplateOf({ replicas: 1, nodeSelector: {}, tolerations: [], affinity: {} }))).toBe(
      plain,
    );
    expect(revisionOf(podTemplateOf({ replicas: 1, topologySpreadConstraints: [] }))).not.toBe(plain);
  });
});
