// Debian's nginx as a round-robin load balancer in front of API processes, with no stickiness: each request (and
// each WebSocket) goes to the next upstream; one that refuses the connection is skipped for the next (nginx passes
// a request on when it could not be sent, whatever its method). TLS on both sides, as an ingress would: the
// browser and kubectl reach it with the local cluster's serving certificate for 127.0.0.1, and it reaches the apps
// over TLS on their own port.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findNginx } from './nginx-binary.js';
import { CLUSTER_DIR } from './paths.js';
import { waitFor } from './wait.js';

/** A TCP port free on 127.0.0.1 now (for a process that must keep one port across restarts). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface LoadBalancer {
  /** https://127.0.0.1:<port>, the one origin the browser and kubectl use. */
  url: string;
  /** What nginx logged (errors and upstream changes). */
  log: () => string;
  stop: () => Promise<void>;
}

/** Starts nginx balancing over the apps on `upstreamPorts` (https on 127.0.0.1); resolves once it answers. */
export async function startLoadBalancer(upstreamPorts: number[]): Promise<LoadBalancer> {
  const dir = mkdtempSync(join(tmpdir(), 'ngx-lb-'));
  for (const temp of ['client', 'proxy']) mkdirSync(join(dir, temp));
  const port = await freePort();
  const pki = join(CLUSTER_DIR, 'pki');
  const root = process.getuid?.() === 0;
  writeFileSync(
    join(dir, 'nginx.conf'),
    `${root ? 'user root;\n' : ''}worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log notice;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/client;
  proxy_temp_path ${dir}/proxy;
  map $http_upgrade $connection_upgrade { default upgrade; '' close; }
  upstream api {
${upstreamPorts.map((p) => `    server 127.0.0.1:${p} max_fails=1 fail_timeout=2s;`).join('\n')}
  }
  server {
    listen 127.0.0.1:${port} ssl;
    ssl_certificate ${pki}/control-plane.crt;
    ssl_certificate_key ${pki}/control-plane.key;
    location / {
      proxy_pass https://api;
      proxy_ssl_trusted_certificate ${pki}/ca.crt;
      proxy_ssl_verify on;
      # nginx checks the upstream's certificate by DNS name only (not its IP address): the local one names localhost.
      proxy_ssl_name localhost;
      proxy_http_version 1.1;
      proxy_set_header Host $http_host;
      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection $connection_upgrade;
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_read_timeout 1h;
      proxy_next_upstream error timeout;
      proxy_connect_timeout 2s;
    }
  }
}
`,
  );
  const nginx = findNginx();
  if (!nginx) throw new Error('nginx is not installed (tools/setup.sh installs Debian’s nginx)');
  const child: ChildProcess = spawn(nginx, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], {
    stdio: 'ignore',
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `https://127.0.0.1:${port}`;
  const log = () => (existsSync(join(dir, 'error.log')) ? readFileSync(join(dir, 'error.log'), 'utf8') : '');
  await waitFor('nginx to listen', () => accepts(port), { timeoutMs: 10_000 }).catch((error: unknown) => {
    throw new Error(`${(error as Error).message}\n${log()}`);
  });
  return {
    url,
    log,
    stop: async () => {
      child.kill('SIGQUIT');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Whether something accepts connections on 127.0.0.1:`port` now. */
export function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}
