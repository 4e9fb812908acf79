// The two servers conformance tests run the same checks against: kube-apiserver itself (the cluster's admin) and
// our API (the admin token, over TLS), each in its own namespace since both store in the same cluster.
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Agent, fetch as undiciFetch, type RequestInit as UndiciInit } from 'undici';
import { CA_FILE, TOKENS, type ControlPlane } from './control-plane.js';
import { CLUSTER_DIR, KUBECONFIG_PATH, ROOT } from './paths.js';

const run = promisify(execFile);

export const CONFORMANCE_DIR = join(ROOT, '.data/conformance');

export interface Server {
  name: 'kube-apiserver' | 'ours';
  kubeconfig: string;
  namespace: string;
  /** A namespace a controller watches, for the checks that need one (issue 34's canary). */
  canaryNamespace?: string;
  /** fetch as the server's admin: the body goes as given, with no Content-Type unless `init.headers` names one. */
  fetch: (path: string, init?: UndiciInit) => ReturnType<typeof undiciFetch>;
}

export function kubeApiServer(namespace: string): Server {
  const dispatcher = new Agent({
    connect: {
      ca: readFileSync(CA_FILE),
      cert: readFileSync(join(CLUSTER_DIR, 'pki/admin.crt')),
      key: readFileSync(join(CLUSTER_DIR, 'pki/admin.key')),
    },
  });
  const url = /server: (\S+)/.exec(readFileSync(KUBECONFIG_PATH, 'utf8'))![1]!;
  return {
    name: 'kube-apiserver',
    kubeconfig: KUBECONFIG_PATH,
    namespace,
    fetch: (path, init = {}) => undiciFetch(`${url}${path}`, { ...init, dispatcher }),
  };
}

export function ourApi(cp: ControlPlane, namespace: string, scratch: string): Server {
  const kubeconfig = join(scratch, 'ours.kubeconfig');
  writeFileSync(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: ours',
      `  cluster: {server: "${cp.httpsUrl}", certificate-authority: "${CA_FILE}"}`,
      'users:',
      `- name: admin`,
      `  user: {token: "${TOKENS.admin}"}`,
      'contexts:',
      '- name: ours',
      '  context: {cluster: ours, user: admin}',
      'current-context: ours',
      '',
    ].join('\n'),
  );
  const dispatcher = new Agent({ connect: { ca: readFileSync(CA_FILE) } });
  return {
    name: 'ours',
    kubeconfig,
    namespace,
    fetch: (path, init = {}) =>
      undiciFetch(`${cp.httpsUrl}${path}`, {
        ...init,
        dispatcher,
        headers: { Authorization: `Bearer ${TOKENS.admin}`, ...(init.headers as Record<string, string>) },
      }),
  };
}

/** Builds the client-go checks and installs the Python client when they are not there yet (cached). */
export async function prepareClients(): Promise<void> {
  await run('bash', [join(ROOT, 'tools/conformance/setup.sh')], { timeout: 600_000 });
}

export interface CheckOutcome {
  check: string;
  outcome: string;
}

/** Runs one client's checks against a server: each line of its output is one check's outcome. */
export async function runClientChecks(
  client: 'client-go' | 'python',
  server: Server,
): Promise<CheckOutcome[]> {
  // Against our API, the checks also make its own requests (POST …/promote, …/abort).
  const ours = (flag: string) => (server.name === 'ours' ? [flag] : []);
  const canary = (flag: string) => (server.canaryNamespace ? [flag, server.canaryNamespace] : []);
  const [command, args] =
    client === 'client-go'
      ? [
          join(CONFORMANCE_DIR, 'client-go-checks'),
          [
            '-kubeconfig',
            server.kubeconfig,
            '-namespace',
            server.namespace,
            ...canary('-canary-namespace'),
            ...ours('-controlplane'),
          ],
        ]
      : [
          join(CONFORMANCE_DIR, 'python/bin/python'),
          [
            join(ROOT, 'test/conformance/python/checks.py'),
            '--kubeconfig',
            server.kubeconfig,
            '--namespace',
            server.namespace,
            ...canary('--canary-namespace'),
            ...ours('--controlplane'),
          ],
        ];
  const { stdout } = await run(command, args, { timeout: 360_000, maxBuffer: 16 * 1024 * 1024 });
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as CheckOutcome);
}

/** Outcomes with the namespace each server worked in replaced by `<ns>`, so the two compare as they are. */
export function comparable(outcomes: CheckOutcome[], server: Server): Map<string, string> {
  return new Map(outcomes.map(({ check, outcome }) => [check, outcome.replaceAll(server.namespace, '<ns>')]));
}
