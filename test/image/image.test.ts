// The image `npm run image` builds, started as its config says (Cmd, Env, User, WorkingDir) against the local
// cluster and a throwaway PostgreSQL database: it applies the migrations, gets ready, reconciles an Nginx and serves
// the web UI as a user other than root, and it holds no devDependencies, TypeScript, tests or local state; started
// again in its two roles as the chart runs it (ROLE=controller, ROLE=api), they reconcile an Nginx together. Run by
// `npm run test:image` (tools/image/test.sh), not by `npm test`: it needs the built image, buildah and root.
//
// No container runtime runs here: the image's root file system is mounted (`buildah from` + `buildah mount`) and its
// command started in it with chroot, on the host's network (the cluster on 127.0.0.1:6443, PostgreSQL on 127.0.0.1).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import {
  chownSync,
  existsSync,
  readFileSync,
  readdirSync,
  realpathSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresDatabase, type TestDatabase } from '../support/database.js';
import { applyNginxCrd, kubectl, kubectlApply } from '../support/kubectl.js';
import { errorLines } from '../support/log-lines.js';
import { uniqueName, waitFor } from '../support/wait.js';

const IMAGE = process.env.IMAGE ?? 'localhost/nginx-control-plane:latest';
const NAMESPACE = uniqueName('image');
/** The two roles' namespace (the chart's way: ROLE=controller and ROLE=api from the one image). */
const ROLES_NAMESPACE = uniqueName('image-roles');
/** Where the kubeconfig is, inside the image's file system. */
const KUBECONFIG = `/tmp/kubeconfig-${NAMESPACE}`;

interface ImageConfig {
  User?: string;
  Env?: string[];
  Entrypoint?: string[] | null;
  Cmd?: string[] | null;
  WorkingDir?: string;
}

const buildah = async (...args: string[]) =>
  (
    await promisify(execFile)('buildah', ['--storage-driver', 'vfs', ...args], {
      maxBuffer: 64 * 1024 * 1024,
    })
  ).stdout.trim();

/** A port nothing listens on now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Every file and folder under `dir`, relative to it, without descending into node_modules. */
function walk(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((entry) => {
    const path = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.name === 'node_modules') return [path];
    return entry.isDirectory() ? [`${path}/`, ...walk(dir, path)] : [path];
  });
}

const WORKSPACES = ['apps/api', 'apps/web', 'libs/kube-runtime', 'libs/nginx-api'];

interface PackageJson {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}
const packageJson = (dir: string) =>
  JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackageJson;

/** Where Node finds package `name` required from `from`: the nearest node_modules up to `root` that has it. */
function resolvePackage(root: string, from: string, name: string): string | undefined {
  for (let dir = from; dir.startsWith(root); dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate);
  }
  return undefined;
}

/**
 * The folders of every installed package the workspace packages need at run time: their dependencies, those of each
 * of these, and so on. Peer dependencies are not followed: an optional one (TypeScript, of Prisma's) is not needed.
 */
function runtimeDependencies(root: string, workspaces: string[]): Set<string> {
  const needed = new Set<string>();
  const queue = workspaces.map((dir) => realpathSync(join(root, dir)));
  for (let dir = queue.pop(); dir; dir = queue.pop()) {
    if (needed.has(dir)) continue;
    needed.add(dir);
    const manifest = packageJson(dir);
    for (const name of Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies })) {
      const found = resolvePackage(root, dir, name);
      if (found) queue.push(found);
    }
  }
  return needed;
}

let config: ImageConfig;
let size: string;
let container: string | undefined;
let rootfs: string;
let app: string;
let database: TestDatabase | undefined;
/** Every process started from the image, stopped at the end. */
const started: Started[] = [];
/** The image's command as it is (ROLE=all, its default). */
let main: Started;
let readyMs: number;

/** One process started from the image's command. */
interface Started {
  child: ChildProcess;
  url: string;
  output: () => string;
}

/** The image's user as uid and gid, from its own /etc/passwd, and its home. */
function imageUser(): { uid: string; gid: string; home: string } {
  const [user, group] = (config.User ?? 'root').split(':');
  const passwd = readFileSync(join(rootfs, 'etc/passwd'), 'utf8')
    .split('\n')
    .map((line) => line.split(':'))
    .find((fields) => fields[0] === user || fields[2] === user);
  if (!passwd) throw new Error(`user ${user} is not in the image's /etc/passwd`);
  const [, , uid, primaryGid, , home] = passwd;
  return { uid: uid!, gid: group && /^\d+$/.test(group) ? group : primaryGid!, home: home! };
}

/**
 * Starts the image's command (Entrypoint and Cmd, its Env, as its User, in its WorkingDir) in its mounted root file
 * system with chroot, with `env` over the Env; resolves once it answers /readyz with 200.
 */
async function startImage(env: Record<string, string>): Promise<Started> {
  const { uid, gid, home } = imageUser();
  const port = await freePort();
  const values = new Map<string, string>([['HOME', home]]);
  for (const entry of config.Env ?? []) {
    const at = entry.indexOf('=');
    values.set(entry.slice(0, at), entry.slice(at + 1));
  }
  for (const [key, value] of Object.entries({ ...env, HOST: '127.0.0.1', PORT: String(port) }))
    values.set(key, value);
  const command = [...(config.Entrypoint ?? []), ...(config.Cmd ?? [])];
  const child = spawn(
    'chroot',
    [
      `--userspec=${uid}:${gid}`,
      `--groups=${gid}`,
      rootfs,
      '/usr/bin/env',
      '-i',
      `--chdir=${config.WorkingDir ?? '/'}`,
      ...[...values].map(([key, value]) => `${key}=${value}`),
      ...command,
    ],
    { detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const handle = { child, url: `http://127.0.0.1:${port}`, output: () => output };
  started.push(handle);
  await waitFor(
    `the image (${env.ROLE ?? 'ROLE=all'}) to answer /readyz with 200`,
    async () => {
      if (child.exitCode !== null) throw new Error(`it exited (${child.exitCode}):\n${output}`);
      return (await fetch(`${handle.url}/readyz`)).status === 200;
    },
    { timeoutMs: 120_000, intervalMs: 250 },
  ).catch((error: Error) => {
    throw new Error(`${error.message}\n${output}`);
  });
  return handle;
}

/** Stops a started process and its group (during the migrations, sh, bash and npx as well). */
async function stopImage({ child }: Started): Promise<void> {
  if (!child.pid || child.exitCode !== null || child.signalCode !== null) return;
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, name);
    } catch {
      // gone already
    }
  };
  const exited = new Promise((resolve) => child.once('exit', resolve));
  signal('SIGTERM');
  const timer = setTimeout(() => signal('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

beforeAll(async () => {
  const inspected = JSON.parse(await buildah('inspect', '--type', 'image', IMAGE)) as {
    OCIv1: { config: ImageConfig };
  };
  config = inspected.OCIv1.config;
  size = await buildah('images', '--format', '{{.Size}}', IMAGE);
  container = await buildah('from', '--pull-never', '--name', `ngx-${NAMESPACE}`, IMAGE);
  rootfs = await buildah('mount', container);
  app = realpathSync(join(rootfs, config.WorkingDir ?? '/'));
}, 180_000);

afterAll(async () => {
  await Promise.all(started.map(stopImage));
  for (const namespace of [NAMESPACE, ROLES_NAMESPACE])
    await kubectl('delete', 'namespace', namespace, '--wait=false').catch(() => {});
  await database?.drop();
  if (container) {
    await buildah('umount', container).catch(() => {});
    await buildah('rm', container);
  }
  console.log(`image ${IMAGE}: ${size}${readyMs ? `; ready ${readyMs} ms after its command started` : ''}`);
}, 60_000);

describe('the image, as built', () => {
  it('runs as a user other than root', () => {
    expect(config.User).toBeTruthy();
    expect(config.User).not.toMatch(/^(root|0)(:|$)/);
  });

  it('holds no devDependencies but those the runtime ones depend on', () => {
    const manifests = ['.', ...WORKSPACES].map((dir) => packageJson(join(app, dir)));
    const dev = new Set(manifests.flatMap((m) => Object.keys(m.devDependencies ?? {})));
    expect(dev).toContain('typescript');
    const needed = runtimeDependencies(app, WORKSPACES);
    const unneeded = ['.', ...WORKSPACES].flatMap((dir) =>
      [...dev]
        .map((name) => join(app, dir, 'node_modules', name))
        .filter((path) => existsSync(path) && !needed.has(realpathSync(path))),
    );
    expect(unneeded.map((path) => path.slice(app.length + 1))).toEqual([]);
  });

  it('holds no TypeScript, tests or local state outside node_modules', () => {
    const files = walk(app);
    expect(files).toContain('apps/api/dist/main.js');
    expect(files.filter((f) => /\.(ts|tsx|mts|cts)$/.test(f))).toEqual([]);
    expect(
      files.filter((f) => /(^|\/)(test|tests|__tests__|testing)\/|\.(spec|test)\.[cm]?js$/.test(f)),
    ).toEqual([]);
    expect(files.filter((f) => /^(\.cluster|\.nx|\.git|\.env)(\/|$)/.test(f))).toEqual([]);
    // .data is made empty for the admin token the app generates, for the app's user only (the Dockerfile).
    expect(files.filter((f) => f.startsWith('.data/') && f !== '.data/')).toEqual([]);
    expect((statSync(join(app, '.data')).mode & 0o777).toString(8)).toBe('700');
  });
});

describe('the image, started against the local cluster and PostgreSQL', () => {
  beforeAll(async () => {
    // Installed by the suite's cluster; the app is started with INSTALL_CRD=false.
    await kubectl('get', 'crd', 'nginxes.mycompany.com').catch(() => applyNginxCrd());
    await kubectl('create', 'namespace', NAMESPACE);
    database = await postgresDatabase();

    // A self-contained kubeconfig (certificates inline) inside the image's file system, readable by its user.
    const { uid, gid } = imageUser();
    writeFileSync(
      join(rootfs, KUBECONFIG),
      await kubectl('config', 'view', '--raw', '--flatten', '--minify'),
      {
        mode: 0o600,
      },
    );
    chownSync(join(rootfs, KUBECONFIG), Number(uid), Number(gid));
    const starting = performance.now();
    main = await startImage({
      WATCH_NAMESPACE: NAMESPACE,
      LEASE_NAMESPACE: NAMESPACE,
      INSTALL_CRD: 'false',
      ADMISSION_WEBHOOK: 'false',
      AUDIT_WEBHOOK: 'false',
      KUBECONFIG,
      DATABASE_URL: database.url,
      MIGRATE_WAIT_SECONDS: '30',
    });
    readyMs = Math.round(performance.now() - starting);
  }, 180_000);

  it('applied the migrations', async () => {
    const committed = readdirSync(join(app, 'prisma/postgresql/migrations'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    const client = new pg.Client({ connectionString: database!.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ migration_name: string }>(
        'SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
      );
      expect(rows.map((row) => row.migration_name).sort()).toEqual(committed);
    } finally {
      await client.end();
    }
    expect(main.output()).toContain('All migrations have been successfully applied.');
  });

  it('answers /readyz with 200', async () => {
    expect((await fetch(`${main.url}/readyz`)).status).toBe(200);
  });

  it('runs the app as that user', () => {
    // chroot, env, sh: each execs the next, so the process started is node in the end.
    const cmdline = readFileSync(`/proc/${main.child.pid}/cmdline`, 'utf8').split('\0');
    expect(cmdline).toContain('apps/api/dist/main.js');
    const status = readFileSync(`/proc/${main.child.pid}/status`, 'utf8');
    const ids = (name: string) => status.match(new RegExp(`^${name}:\\s+(.*)$`, 'm'))![1]!.split(/\s+/);
    expect(ids('Uid').every((id) => id !== '0')).toBe(true);
    expect(ids('Gid').every((id) => id !== '0')).toBe(true);
    expect(ids('Groups')).not.toContain('0');
  });

  it('reconciles an Nginx: 2 pods owned by it, ready', async () => {
    const manifest = {
      apiVersion: 'mycompany.com/v1',
      kind: 'Nginx',
      metadata: { name: 'web' },
      spec: { replicas: 2 },
    };
    await kubectlApply(JSON.stringify(manifest), NAMESPACE);
    const uid = (
      await kubectl('get', 'nginxes.mycompany.com', 'web', '-n', NAMESPACE, '-o', 'jsonpath={.metadata.uid}')
    ).trim();
    await waitFor(
      '2 ready pods owned by the Nginx',
      async () => {
        const pods = JSON.parse(await kubectl('get', 'pods', '-n', NAMESPACE, '-o', 'json')) as {
          items: {
            metadata: { ownerReferences?: { uid: string; kind: string }[] };
            status?: { conditions?: { type: string; status: string }[] };
          }[];
        };
        const ready = pods.items.filter(
          (pod) =>
            pod.metadata.ownerReferences?.some((owner) => owner.kind === 'Nginx' && owner.uid === uid) &&
            pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
        );
        return ready.length === 2;
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
  });

  it('serves the web UI', async () => {
    const response = await fetch(`${main.url}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await response.text();
    expect(html).toMatch(/^<!DOCTYPE html>/i);
    expect(html).toContain('/_next/static/');
  });

  it('logs no error', () => {
    expect(errorLines(main.output())).toEqual([]);
  });
});

describe('the image in its two roles, as the chart runs it', () => {
  const TOKEN = 'image-editor-token-0123456789abcdef';
  let controller: Started;
  let api: Started;

  beforeAll(async () => {
    await kubectl('create', 'namespace', ROLES_NAMESPACE);
    const shared = {
      WATCH_NAMESPACE: ROLES_NAMESPACE,
      INSTALL_CRD: 'false',
      ADMISSION_WEBHOOK: 'false',
      AUDIT_WEBHOOK: 'false',
      KUBECONFIG,
      DATABASE_URL: database!.url,
      MIGRATE_WAIT_SECONDS: '30',
    };
    [controller, api] = await Promise.all([
      startImage({ ...shared, ROLE: 'controller', LEASE_NAMESPACE: ROLES_NAMESPACE }),
      startImage({ ...shared, ROLE: 'api', AUTH_TOKENS: `image-editor:editor:${TOKEN}` }),
    ]);
  }, 180_000);

  it('runs the controller alone: it leads, serves its health and metrics, and no API or UI', async () => {
    const readiness = (await (await fetch(`${controller.url}/readyz`)).json()) as {
      role: string;
      checks: { controller?: { leader: boolean } };
    };
    expect(readiness.role).toBe('controller');
    await waitFor('the controller to lead', async () => {
      const body = (await (await fetch(`${controller.url}/readyz`)).json()) as typeof readiness;
      return body.checks.controller?.leader === true;
    });
    expect((await fetch(`${controller.url}/metrics`)).status).toBe(200);
    for (const path of ['/', `/apis/mycompany.com/v1/namespaces/${ROLES_NAMESPACE}/nginxes`])
      expect((await fetch(`${controller.url}${path}`)).status, path).toBe(404);
  });

  it('takes an Nginx through the API, which the controller reconciles, and serves the UI', async () => {
    const headers = { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' };
    const nginxes = `${api.url}/apis/mycompany.com/v1/namespaces/${ROLES_NAMESPACE}/nginxes`;
    const created = await fetch(nginxes, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        apiVersion: 'mycompany.com/v1',
        kind: 'Nginx',
        metadata: { name: 'web' },
        spec: { replicas: 2 },
      }),
    });
    expect(created.status).toBe(201);
    await waitFor(
      'the Nginx at 2 ready replicas, read through the API',
      async () => {
        const nginx = (await (await fetch(`${nginxes}/web`, { headers })).json()) as {
          status?: { readyReplicas?: number };
        };
        return nginx.status?.readyReplicas === 2;
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    expect((await fetch(`${api.url}/`)).headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('logs no error in either role', () => {
    expect(errorLines(controller.output())).toEqual([]);
    expect(errorLines(api.output())).toEqual([]);
  });
});
