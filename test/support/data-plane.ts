// A stand-in for the pods' containers, so a real data plane (a Gateway implementation such as Traefik, see
// traefik.ts) can send requests to kwok's pods: for each running pod of a namespace, an HTTP server on
// `<pod IP>:<port>` that answers which pod and which revision (its `mycompany.com/revision` label) it is. kwok
// gives pods fake IPs (10.244.0.0/16): each is added to the loopback device for as long as its pod runs
// (`ip addr add <ip>/32 dev lo`: root and iproute2 needed), so connections to it arrive here.
import { execFile } from 'node:child_process';
import { createServer, request, Agent, type IncomingHttpHeaders, type Server } from 'node:http';
import { promisify } from 'node:util';
import type { V1Pod } from '@kubernetes/client-node';
import {
  DeletedFinalStateUnknown,
  SharedInformer,
  type KubeClient,
  type KubeObject,
} from '../../libs/kube-runtime/src/index.js';
import { LABEL_REVISION } from '../../libs/nginx-api/src/index.js';
import { freePort } from './prometheus.js';

const run = promisify(execFile);

/** What a pod's server answers, as JSON (also in the headers `x-pod` and `x-revision`). */
export interface PodAnswer {
  pod: string;
  /** The pod's `mycompany.com/revision` label at the time of the request ('' when it has none). */
  revision: string;
}

/**
 * Adds `ip`/32 to the loopback device. Resolves true if this call added it, false if it was there already (another
 * run's, left to its owner).
 */
export async function addLoopbackAddress(ip: string): Promise<boolean> {
  try {
    await run('ip', ['addr', 'add', `${ip}/32`, 'dev', 'lo']);
    return true;
  } catch (error) {
    if (/File exists/.test((error as { stderr?: string }).stderr ?? '')) return false;
    throw new Error(
      `cannot add ${ip} to the loopback device (root and iproute2's ip are needed): ${String(error)}`,
    );
  }
}

/** Removes `ip`/32 from the loopback device (nothing if it is not there). */
export async function removeLoopbackAddress(ip: string): Promise<void> {
  await run('ip', ['addr', 'del', `${ip}/32`, 'dev', 'lo']).catch(() => {});
}

/** One pod being served: its listener and whether its address is ours to remove. */
interface ServedPod {
  ip: string;
  server: Server;
  addedAddress: boolean;
  /** The newest copy of the pod (its labels are read per request). */
  pod: V1Pod;
}

export interface PodBackends {
  /** The port every pod serves on: the Services' targetPort. */
  port: number;
  /** Pod names by IP, of the pods served now. */
  serving(): Map<string, string>;
  /** How many requests each pod (by name) has answered since it was first served. */
  answered(): Map<string, number>;
  /** Stops every server and removes the loopback addresses it added. */
  stop(): Promise<void>;
}

const servable = (pod: V1Pod) =>
  pod.status?.phase === 'Running' &&
  !!pod.status.podIP &&
  !pod.metadata?.deletionTimestamp &&
  !pod.spec?.hostNetwork;

/**
 * Serves every running pod of `namespace` on `port` (a free one unless given) until stopped: a pod's server starts
 * once it is Running with an IP, and stops when it is being deleted or gone. Resolves once the pods running now
 * are served.
 */
export async function servePods(
  client: KubeClient,
  namespace: string,
  { port }: { port?: number } = {},
): Promise<PodBackends> {
  const servingPort = port ?? (await freePort());
  const served = new Map<string, ServedPod>();
  const answered = new Map<string, number>();
  // One change at a time per pod (uid), in the order the informer delivered them.
  const pending = new Map<string, Promise<void>>();
  const errors: Error[] = [];

  const start = async (uid: string, pod: V1Pod) => {
    const ip = pod.status!.podIP!;
    const addedAddress = await addLoopbackAddress(ip);
    const entry: ServedPod = { ip, addedAddress, pod, server: undefined! };
    entry.server = createServer((req, res) => {
      const answer: PodAnswer = {
        pod: entry.pod.metadata!.name!,
        revision: entry.pod.metadata?.labels?.[LABEL_REVISION] ?? '',
      };
      answered.set(answer.pod, (answered.get(answer.pod) ?? 0) + 1);
      req.resume();
      res.writeHead(200, {
        'content-type': 'application/json',
        'x-pod': answer.pod,
        'x-revision': answer.revision,
      });
      res.end(JSON.stringify(answer));
    });
    await new Promise<void>((resolve, reject) => {
      entry.server.once('error', reject);
      entry.server.listen(servingPort, ip, () => resolve());
    }).catch(async (error: Error) => {
      if (addedAddress) await removeLoopbackAddress(ip);
      throw new Error(`cannot serve pod ${pod.metadata!.name} on ${ip}:${servingPort}: ${error.message}`);
    });
    served.set(uid, entry);
  };
  const stopServing = async (uid: string) => {
    const entry = served.get(uid);
    if (!entry) return;
    served.delete(uid);
    entry.server.closeAllConnections();
    await new Promise((resolve) => entry.server.close(resolve));
    if (entry.addedAddress) await removeLoopbackAddress(entry.ip);
  };
  const reconcile = async (uid: string, pod: V1Pod | undefined) => {
    const entry = served.get(uid);
    if (entry && pod && servable(pod) && pod.status!.podIP === entry.ip) {
      entry.pod = pod;
      return;
    }
    await stopServing(uid);
    if (pod && servable(pod)) await start(uid, pod);
  };
  const enqueue = (uid: string, pod: V1Pod | undefined) => {
    const next = (pending.get(uid) ?? Promise.resolve())
      .then(() => reconcile(uid, pod))
      .catch((error: Error) => void errors.push(error));
    pending.set(uid, next);
    return next;
  };

  const informer = new SharedInformer<V1Pod & KubeObject>({
    client,
    resource: { group: '', version: 'v1', plural: 'pods', namespace },
    kind: 'Pod',
  });
  informer.addEventHandler({
    add: (pod) => void enqueue(pod.metadata!.uid!, pod),
    update: (_, pod) => void enqueue(pod.metadata!.uid!, pod),
    delete: (pod) => {
      const gone = pod instanceof DeletedFinalStateUnknown ? pod.object : pod;
      void enqueue(gone.metadata!.uid!, undefined);
    },
  });
  const abort = new AbortController();
  const watching = informer.run(abort.signal);
  await informer.waitForCacheSync();
  await Promise.all(pending.values());
  if (errors.length > 0) throw errors[0];

  return {
    port: servingPort,
    answered: () => new Map(answered),
    serving: () => new Map([...served.values()].map((entry) => [entry.ip, entry.pod.metadata!.name!])),
    stop: async () => {
      abort.abort();
      await watching;
      await Promise.all(pending.values());
      await Promise.all([...served.keys()].map(stopServing));
    },
  };
}

/** Sends one GET to `url` with `headers`: the status and the body. */
function get(
  url: string,
  headers: IncomingHttpHeaders,
  agent: Agent,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error(`GET ${url} timed out`)));
    req.end();
  });
}

/**
 * Sends `n` GETs to `url` (with `headers`: node:http, so `host` may be set too), a few at a time over kept-alive
 * connections, and counts them by the revision of the pod that answered (a PodAnswer). An answer that is not a
 * pod's (e.g. the gateway's 404 or 503) counts under `HTTP <status>`.
 */
export async function countByRevision(
  url: string,
  n: number,
  headers: IncomingHttpHeaders = {},
  { concurrency = 8 } = {},
): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  let sent = 0;
  const worker = async () => {
    while (sent < n) {
      sent += 1;
      const { status, body } = await get(url, headers, agent);
      let key = `HTTP ${status}`;
      if (status === 200) {
        try {
          key = (JSON.parse(body) as PodAnswer).revision;
        } catch {
          // Not a pod's answer: counted by its status.
        }
      }
      counts[key] = (counts[key] ?? 0) + 1;
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker));
  } finally {
    agent.destroy();
  }
  return counts;
}
