// Property: our validation of an Nginx create (checkNginx, what the API answers before anything reaches the API
// server) and kube-apiserver's (a server-side dry-run create of the CRD generated from the same declaration) give
// the same verdict on random specs, valid and invalid, drawn from the schema's own shapes — and, when they refuse,
// name the same fields. The specs break bounds, lengths, patterns, enums, types, required fields and CEL rules.
// Not compared: what our API checks on purpose beyond the CRD (spec.config's nginx syntax, the analysis
// conditions' grammar, header routes' regexes): those fields take only valid text here.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkNginx } from '../apps/api/src/rest/write-checks.js';
import { StatusException } from '../apps/api/src/http/kube-status.js';
import { nginxSpecSchema, type JsonSchema } from '../libs/nginx-api/src/index.js';
import { kubeApiServer, type Server } from './support/conformance.js';
import { applyNginxCrd, kubectl } from './support/kubectl.js';
import { uniqueName } from './support/wait.js';

const NS = uniqueName('validation-property');
/** About 15 s on the 2-core test machine (a run is one dry-run round trip); PROPERTY_RUNS to search longer. */
const NUM_RUNS = Number(process.env.PROPERTY_RUNS ?? 1500);
let kube: Server;

beforeAll(async () => {
  await applyNginxCrd();
  await kubectl('create', 'namespace', NS);
  kube = kubeApiServer(NS);
});

afterAll(async () => {
  await kubectl('delete', 'namespace', NS, '--wait=false').catch(() => {});
});

/** A verdict: accepted, or refused with the fields its causes name (sorted, each once). */
type Verdict = { accepted: true } | { accepted: false; code: number; fields: string[] };

const refused = (code: number, causes: { field?: string }[] = []): Verdict => ({
  accepted: false,
  code,
  fields: [...new Set(causes.map((cause) => cause.field ?? ''))].sort(),
});

function ourVerdict(object: unknown): Verdict {
  try {
    checkNginx(object, { namespace: NS });
    return { accepted: true };
  } catch (error) {
    if (!(error instanceof StatusException)) throw error;
    return refused(error.code, error.details?.causes);
  }
}

async function kubeVerdict(object: unknown): Promise<Verdict> {
  const response = await kube.fetch(`/apis/mycompany.com/v1/namespaces/${NS}/nginxes?dryRun=All`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(object),
  });
  const body = (await response.json()) as { details?: { causes?: { field?: string }[] } };
  return response.ok ? { accepted: true } : refused(response.status, body.details?.causes);
}

/**
 * Values for `schema`: within its bounds and patterns most of the time, and with `slip` the chance at each node
 * of one that breaks it (out of bounds, too long, off-pattern, not in the enum, of another type, a required
 * field left out). CEL rules are not aimed at: the fields' random combinations break them often enough.
 */
function valueOf(schema: JsonSchema, slip: number, depth = 0): fc.Arbitrary<unknown> {
  const broken = brokenValueOf(schema);
  const good = goodValueOf(schema, slip, depth);
  return slip === 0
    ? good
    : fc.oneof({ weight: Math.round(1 / slip), arbitrary: good }, { weight: 1, arbitrary: broken });
}

const wrongType = fc.oneof(
  fc.constant('x'),
  fc.constant(1.5),
  fc.constant(true),
  fc.constant([]),
  fc.constant({}),
);

function brokenValueOf(schema: JsonSchema): fc.Arbitrary<unknown> {
  const options: fc.Arbitrary<unknown>[] = [wrongType];
  if (schema.minimum !== undefined) options.push(fc.constant(schema.minimum - 1));
  if (schema.maximum !== undefined) options.push(fc.constant(schema.maximum + 1));
  if (schema.maxLength !== undefined) options.push(fc.constant('a'.repeat(schema.maxLength + 1)));
  if (schema.pattern !== undefined || schema.enum) options.push(fc.string({ maxLength: 12 }));
  if (schema.minLength) options.push(fc.constant(''));
  return fc.oneof(...options);
}

/** The fields our API checks beyond the CRD, by name: valid text only (see the top of the file). */
const BEYOND_THE_CRD: Record<string, fc.Arbitrary<unknown>> = {
  config: fc.constantFrom('server { listen 80; }', "server { location / { return 200 'ok'; } }"),
  successCondition: fc.constantFrom('result < 0.01', 'result >= 1'),
  failureCondition: fc.constantFrom('result > 0.5'),
  regex: fc.constantFrom('^beta$', 'v[0-9]+\\.x'),
};

const QUALIFIED_KEYS = ['disktype', 'kubernetes.io/hostname', 'topology.kubernetes.io/zone', 'a_b.c-9'];

function stringOf(schema: JsonSchema): fc.Arbitrary<string> {
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const max = Math.min(schema.maxLength ?? 24, 24);
  const text = schema.pattern
    ? fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length <= max)
    : fc.string({ minLength: schema.minLength ?? 0, maxLength: max });
  return schema.minLength ? text.filter((s) => s.length >= schema.minLength!) : text;
}

function goodValueOf(schema: JsonSchema, slip: number, depth: number): fc.Arbitrary<unknown> {
  if (schema['x-kubernetes-int-or-string'])
    return fc.oneof(fc.integer({ min: 0, max: 200 }), stringOf({ type: 'string', pattern: schema.pattern }));
  switch (schema.type) {
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -5, max: Math.min(schema.maximum ?? 1000, 100_000) });
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'string':
      return stringOf(schema);
    case 'array':
      return fc.array(valueOf(schema.items!, slip, depth + 1), { maxLength: depth > 3 ? 1 : 3 });
    case 'object':
      if (!schema.properties)
        return fc.dictionary(
          fc.oneof(fc.constantFrom(...QUALIFIED_KEYS), fc.string({ maxLength: 8 })),
          valueOf(schema.additionalProperties!, slip, depth + 1),
          { maxKeys: 3 },
        );
      return objectOf(schema, slip, depth);
    default:
      return fc.constant(undefined);
  }
}

function objectOf(schema: JsonSchema, slip: number, depth: number): fc.Arbitrary<unknown> {
  const required = schema.required ?? [];
  const fields = Object.fromEntries(
    Object.entries(schema.properties!).map(([key, child]) => [
      key,
      BEYOND_THE_CRD[key] ?? valueOf(child, slip, depth + 1),
    ]),
  );
  // A few optional fields at a time (at most 4 on the spec), so that a spec can pass every rule and stays small
  // enough to read in a counterexample.
  const optional = Object.keys(fields).filter((key) => !required.includes(key));
  const kept = fc
    .subarray(optional, { maxLength: depth === 0 ? 4 : optional.length })
    .chain((keys) => fc.record(pick(fields, keys, required), { requiredKeys: [...required, ...keys] }));
  if (slip === 0 || required.length === 0) return kept;
  return fc.oneof(
    { weight: Math.round(1 / slip), arbitrary: kept },
    { weight: 1, arbitrary: kept.map(({ [required[0]!]: _left, ...value }) => value) },
  );
}

function pick<V>(value: Record<string, V>, keys: string[], required: string[]): Record<string, V> {
  return Object.fromEntries(
    Object.entries(value).filter(([key]) => keys.includes(key) || required.includes(key)),
  );
}

/** A whole Nginx around a random spec: a third of them with nothing broken on purpose. */
const nginx = fc
  .oneof(...[0, 0.05, 0.15].map((slip) => valueOf(nginxSpecSchema, slip)))
  .map((spec) => ({ apiVersion: 'mycompany.com/v1', kind: 'Nginx', metadata: { name: 'prop' }, spec }));

describe('our validation of an Nginx against kube-apiserver', () => {
  it('gives the same verdict, and names the same fields, on random specs', async () => {
    let accepted = 0;
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(nginx, async (object) => {
        runs++;
        const theirs = await kubeVerdict(object);
        const ours = ourVerdict(object);
        if (theirs.accepted) accepted++;
        expect(ours).toEqual(theirs);
      }),
      { numRuns: NUM_RUNS, interruptAfterTimeLimit: 50_000 },
    );
    // Both kinds of spec were tried, not only refusals (runs: fewer than NUM_RUNS if the time limit came first).
    expect(accepted).toBeGreaterThan(runs / 10);
    expect(runs - accepted).toBeGreaterThan(runs / 10);
  }, 90_000);
});
