// The Helm chart deploy/helm/nginx-control-plane as the one source of the kustomizations in deploy/app and
// deploy/postgresql: `helm template` with the default values, split into one file per template and stripped of the
// labels only Helm sets. Used by tools/deploy/render.ts (npm run deploy:render) and test/deploy-helm.test.ts.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { format, resolveConfig } from 'prettier';
import { parseDocument, type Document } from 'yaml';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const CHART_DIR = 'deploy/helm/nginx-control-plane';
export const CHART = join(ROOT, CHART_DIR);
/** Helm, built from the Go module in tools/helm by tools/helm/build.sh (npm run setup). */
export const HELM = process.env.HELM ?? join(ROOT, '.cluster/bin/helm');
/** The release and namespace the kustomizations are rendered for (the default release name). */
export const RELEASE = 'nginx-control-plane';
export const NAMESPACE = RELEASE;

/** The kustomization each template's objects go to; templates not named here go to deploy/app. */
export const KUSTOMIZATIONS = {
  app: {
    dir: 'deploy/app',
    header: [
      'The app in two roles, each with its own service account and least-privilege RBAC: the controller (a Deployment',
      'of two replicas, the holder of the nginx-controller Lease reconciles; a metrics Service) and the API (a Deployment',
      'of two replicas behind the Service nginx-control-plane, 443, TLS terminated by the app), each with a',
      'PodDisruptionBudget. It reads its audit database URL from the Secret nginx-control-plane-database (key `url`)',
      'and its certificate from the Secret nginx-control-plane-tls (`tls.crt`, `tls.key`, and `ca.crt` for the',
      'admission webhook\'s caBundle); see docs/operations.md, "Deploying to a cluster".',
    ],
  },
  postgresql: {
    dir: 'deploy/postgresql',
    header: [
      'One PostgreSQL for the audit trail, shared by every replica of the app: its data on a PersistentVolumeClaim, its',
      "password from the Secret nginx-control-plane-database (key `password`), reachable only from the app's pods.",
    ],
  },
} as const;
export type KustomizationName = keyof typeof KUSTOMIZATIONS;

/** The template's kustomization: the bundled PostgreSQL's own, none for the CRD (deploy/crd is its source), else app. */
export function kustomizationOf(template: string): KustomizationName | undefined {
  if (template === 'crd.yaml') return undefined;
  return template.startsWith('postgresql-') ? 'postgresql' : 'app';
}

/** Runs `helm` with `args`; rejects with Helm's stderr on failure. */
export async function helm(...args: string[]): Promise<string> {
  if (!existsSync(HELM))
    throw new Error(`${HELM} is missing: run npm run setup (or bash tools/helm/build.sh)`);
  try {
    const { stdout } = await promisify(execFile)(HELM, args, { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    const { stderr } = error as { stderr?: string };
    throw new Error(`helm ${args.join(' ')} failed: ${stderr?.trim() || String(error)}`, { cause: error });
  }
}

/** `helm template` of the chart as release `release` in `namespace`, with extra arguments (--set, -f). */
export const helmTemplate = (
  args: string[] = [],
  { release = RELEASE, namespace = NAMESPACE }: { release?: string; namespace?: string } = {},
) => helm('template', release, CHART, '--namespace', namespace, ...args);

/** One document of a `helm template` output: the template it came from, and its YAML (comments kept). */
export interface Rendered {
  template: string;
  doc: Document;
}

/** Splits `helm template` output into its documents, each with the template (`# Source:`) it came from. */
export function splitRendered(output: string): Rendered[] {
  const result: Rendered[] = [];
  for (const part of output.split(/^---\s*$/m)) {
    const source = /^# Source: [^/]+\/templates\/(.+)$/m.exec(part);
    const text = part.replace(/^# Source: .*\n/m, '');
    const doc = parseDocument(text);
    if (doc.errors.length > 0) throw new Error(`${source?.[1]}: ${doc.errors[0]!.message}`);
    if (!source || doc.contents === null) continue;
    result.push({ template: source[1]!, doc });
  }
  return result;
}

/** Labels and annotations only Helm sets, left out of the kustomizations (and out of comparisons with them). */
const HELM_ONLY_LABELS = ['helm.sh/chart', 'app.kubernetes.io/managed-by'];
const isHelmOnlyAnnotation = (key: string) => key.startsWith('helm.sh/');

/** Removes Helm-only labels and annotations from a document's metadata, in place. */
export function stripHelmOnly(doc: Document): Document {
  for (const key of HELM_ONLY_LABELS) doc.deleteIn(['metadata', 'labels', key]);
  const annotations = doc.getIn(['metadata', 'annotations']) as { items?: { key: unknown }[] } | undefined;
  for (const item of [...(annotations?.items ?? [])]) {
    const key = String((item.key as { value?: unknown })?.value ?? item.key);
    if (isHelmOnlyAnnotation(key)) doc.deleteIn(['metadata', 'annotations', key]);
  }
  if ((doc.getIn(['metadata', 'annotations']) as { items?: unknown[] } | undefined)?.items?.length === 0)
    doc.deleteIn(['metadata', 'annotations']);
  return doc;
}

/** A plain object without Helm-only labels and annotations, for comparing a Helm render with a kustomize one. */
export function withoutHelmOnly(object: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(object) as { metadata?: { labels?: object; annotations?: object } };
  const strip = (map: object | undefined, drop: (key: string) => boolean) =>
    map && Object.fromEntries(Object.entries(map).filter(([key]) => !drop(key)));
  if (copy.metadata?.labels)
    copy.metadata.labels = strip(copy.metadata.labels, (k) => HELM_ONLY_LABELS.includes(k));
  if (copy.metadata?.annotations) {
    copy.metadata.annotations = strip(copy.metadata.annotations, isHelmOnlyAnnotation);
    if (Object.keys(copy.metadata.annotations!).length === 0) delete copy.metadata.annotations;
  }
  return copy as Record<string, unknown>;
}

const wrap = (lines: readonly string[]) => lines.map((line) => `# ${line}`.trimEnd()).join('\n');

/** Formats a YAML file's text as Prettier would for `path` (the repository's settings). */
async function prettier(path: string, text: string): Promise<string> {
  return format(text, { ...(await resolveConfig(join(ROOT, path))), filepath: join(ROOT, path) });
}

/**
 * The files of deploy/app and deploy/postgresql, rendered from the chart with its default values: path (relative
 * to the repository) → text. One file per template, headed by where it comes from, and a kustomization.yaml each.
 */
export async function renderKustomizations(): Promise<Map<string, string>> {
  const rendered = splitRendered(await helmTemplate());
  const byFile = new Map<string, { kustomization: KustomizationName; docs: Document[] }>();
  for (const { template, doc } of rendered) {
    const kustomization = kustomizationOf(template);
    if (kustomization === undefined) continue;
    const path = `${KUSTOMIZATIONS[kustomization].dir}/${basename(template)}`;
    const entry = byFile.get(path) ?? { kustomization, docs: [] };
    entry.docs.push(stripHelmOnly(doc));
    byFile.set(path, entry);
  }
  const files = new Map<string, string>();
  for (const [path, { docs }] of [...byFile].sort(([a], [b]) => a.localeCompare(b))) {
    const header = wrap([
      `GENERATED by \`npm run deploy:render\` from ${CHART_DIR}/templates/${basename(path)}`,
      `(helm template, the chart's default values, release and namespace ${NAMESPACE}). Do not edit.`,
    ]);
    const body = docs.map((doc) => doc.toString({ lineWidth: 0 })).join('---\n');
    files.set(path, await prettier(path, `${header}\n${body}`));
  }
  for (const [name, { dir, header }] of Object.entries(KUSTOMIZATIONS)) {
    const resources = [...files.keys()]
      .filter((path) => path.startsWith(`${dir}/`))
      .map((path) => basename(path));
    const path = `${dir}/kustomization.yaml`;
    const text = [
      wrap([`GENERATED by \`npm run deploy:render\` from ${CHART_DIR} (its ${name} objects). Do not edit.`]),
      wrap(header),
      'apiVersion: kustomize.config.k8s.io/v1beta1',
      'kind: Kustomization',
      'resources:',
      ...resources.map((resource) => `  - ${resource}`),
      '',
    ].join('\n');
    files.set(path, await prettier(path, text));
  }
  return files;
}
