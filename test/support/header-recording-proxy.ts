// A TLS proxy in front of the local kube-apiserver that records the trace headers of every request it passes on:
// what kube-apiserver receives from a client given the kubeconfig this writes (kube-apiserver itself keeps no
// record of them: its audit events do not carry request headers). It serves kube-apiserver's own certificate and
// forwards with the admin client certificate, the same identity as the cluster's kubeconfig.
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { API_SERVER, CLUSTER_DIR, KUBECONFIG_PATH } from './paths.js';

/** One request kube-apiserver got through the proxy. */
export interface RecordedRequest {
  method: string;
  /** Path and query. */
  url: string;
  /** Its `traceparent` header; undefined when none was sent. */
  traceparent: string | undefined;
}

export interface HeaderRecordingProxy {
  /** A kubeconfig like the cluster's, whose server is the proxy. */
  kubeconfig: string;
  requests: RecordedRequest[];
  stop: () => Promise<void>;
}

export async function startHeaderRecordingProxy(directory: string): Promise<HeaderRecordingProxy> {
  const pki = join(CLUSTER_DIR, 'pki');
  const upstream = new URL(API_SERVER);
  const tls = {
    ca: readFileSync(join(pki, 'ca.crt')),
    cert: readFileSync(join(pki, 'admin.crt')),
    key: readFileSync(join(pki, 'admin.key')),
  };
  const requests: RecordedRequest[] = [];
  const server: Server = createServer(
    { cert: readFileSync(join(pki, 'apiserver.crt')), key: readFileSync(join(pki, 'apiserver.key')) },
    (incoming, answer) => {
      const traceparent = incoming.headers.traceparent;
      requests.push({
        method: incoming.method ?? 'GET',
        url: incoming.url ?? '/',
        traceparent: Array.isArray(traceparent) ? traceparent[0] : traceparent,
      });
      const outgoing = request(
        {
          ...tls,
          host: upstream.hostname,
          port: upstream.port,
          method: incoming.method,
          path: incoming.url,
          headers: { ...incoming.headers, host: upstream.host },
        },
        (response) => {
          answer.writeHead(response.statusCode ?? 502, response.headers);
          response.pipe(answer);
        },
      );
      outgoing.on('error', () => answer.destroy());
      answer.on('close', () => outgoing.destroy());
      incoming.pipe(outgoing);
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const kubeconfig = join(directory, 'kubeconfig');
  writeFileSync(
    kubeconfig,
    readFileSync(KUBECONFIG_PATH, 'utf8').replace(/server: \S+/, `server: https://127.0.0.1:${port}`),
  );
  return {
    kubeconfig,
    requests,
    stop: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
