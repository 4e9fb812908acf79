/**
 * spec.tls and spec.ingress: the names, patterns and the TLS wrapper configuration they share between the schema,
 * the controller and the UI. Pure (no Node APIs): the web UI uses it too.
 */

export { DNS_SUBDOMAIN, INGRESS_HOST } from './dns-names.js';

/** The port the pods' nginx terminates TLS on, and the container port named `https`. */
export const TLS_PORT = 443;

/** Where every pod mounts spec.tls's Secret (its `tls.crt` and `tls.key`). */
export const TLS_MOUNT_PATH = '/etc/nginx/tls';

/** The file of the mounted config directory that holds the TLS server, beside default.conf. */
export const TLS_CONFIG_KEY = 'tls.conf';

/** ReplicaFailure's reason while spec.tls names a Secret that does not exist: no pod is created. */
export const SECRET_NOT_FOUND = 'SecretNotFound';

/** Default of spec.ingress.path. */
export const DEFAULT_INGRESS_PATH = '/';

/**
 * The wrapper's TLS server (conf.d/tls.conf): nginx listens on TLS_PORT with the mounted certificate and key and
 * passes every request to the plain server(s) on `port` in the same pod, with the Host the client sent, so the
 * user's configuration (spec.config, any number of server blocks and server names) serves both without being
 * rewritten. IPv4 only: a pod without IPv6 would fail to bind `[::]:443`.
 */
export function tlsServerConfig(port: number): string {
  return `# spec.tls: TLS on ${TLS_PORT} in front of the server(s) on ${port} (written by the controller).
server {
    listen ${TLS_PORT} ssl;
    ssl_certificate ${TLS_MOUNT_PATH}/tls.crt;
    ssl_certificate_key ${TLS_MOUNT_PATH}/tls.key;

    location / {
        proxy_pass http://127.0.0.1:${port};
        proxy_set_header Host $host;
        proxy_set_header X-Real-IP $remote_addr;
        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
        proxy_set_header X-Forwarded-Proto https;
    }
}
`;
}

/** Whether `host` is a dotted-quad IPv4 address, which an Ingress host may not be. */
export function isIpv4Host(host: string): boolean {
  return /^[0-9]+(\.[0-9]+){3}$/.test(host);
}
