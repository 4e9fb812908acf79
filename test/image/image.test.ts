// The image `npm run image` builds, started as its config says (Cmd, Env, User, WorkingDir) against the local
// cluster and a throwaway PostgreSQL database: it applies the migrations, gets ready, reconciles an Nginx and serves
// the web UI as a user other than root, and it holds no devDependencies, TypeScript, tests or local state. Run by
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
let child: ChildProcess | undefined;
let output = '';
let url: string;
let readyMs: number;

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
  if (child?.pid && child.exitCode === null && child.signalCode === null) {
    // Its process group: during the migrations, sh, bash and npx as well.
    const signal = (name: NodeJS.Signals) => {
      try {
        process.kill(-child!.pid!, name);
      } catch {
        // gone already
      }
    };
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    signal('SIGTERM');
    const timer = setTimeout(() => signal('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
  await kubectl('delete', 'namespace', NAMESPACE, '--wait=false').catch(() => {});
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

    // The user the image names, from its own /etc/passwd.
    const [user, group] = (config.User ?? 'root').split(':');
    const passwd = readFileSync(join(rootfs, 'etc/passwd'), 'utf8')
      .split('\n')
      .map((line) => line.split(':'))
      .find((fields) => fields[0] === user || fields[2] === user);
    if (!passwd) throw new Error(`user ${user} is not in the image's /etc/passwd`);
    const [, , uid, primaryGid, , home] = passwd;
    const gid = group && /^\d+$/.test(group) ? group : primaryGid!;

    // A self-contained kubeconfig (certificates inline) inside the image's file system, readable by that user.
    const kubeconfig = `/tmp/kubeconfig-${NAMESPACE}`;
    writeFileSync(
      join(rootfs, kubeconfig),
      await kubectl('config', 'view', '--raw', '--flatten', '--minify'),
      { mode: 0o600 },
    );
    chownSync(join(rootfs, kubeconfig), Number(uid), Number(gid));

    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    const env = new Map<string, string>([['HOME', home!]]);
    for (const entry of config.Env ?? []) {
      const at = entry.indexOf('=');
      env.set(entry.slice(0, at), entry.slice(at + 1));
    }
    for (const [key, value] of Object.entries({
      WATCH_NAMESPACE: NAMESPACE,
      LEASE_NAMESPACE: NAMESPACE,
      INSTALL_CRD: 'false',
      ADMISSION_WEBHOOK: 'false',
      AUDIT_WEBHOOK: 'false',
      HOST: '127.0.0.1',
      PORT: String(port),
      KUBECONFIG: kubeconfig,
      DATABASE_URL: database.url,
      MIGRATE_WAIT_SECONDS: '30',
    }))
      env.set(key, value);
    const command = [...(config.Entrypoint ?? []), ...(config.Cmd ?? [])];
    const started = performance.now();
    child = spawn(
      'chroot',
      [
        `--userspec=${uid}:${gid}`,
        `--groups=${gid}`,
        rootfs,
        '/usr/bin/env',
        '-i',
        `--chdir=${config.WorkingDir ?? '/'}`,
        ...[...env].map(([key, value]) => `${key}=${value}`),
        ...command,
      ],
      { detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await waitFor(
      'the app in the image to answer /readyz with 200',
      async () => {
        if (child!.exitCode !== null) throw new Error(`it exited (${child!.exitCode}):\n${output}`);
        return (await fetch(`${url}/readyz`)).status === 200;
      },
      { timeoutMs: 120_000, intervalMs: 250 },
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${output}`);
    });
    readyMs = Math.round(performance.now() - started);
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
    expect(output).toContain('All migrations have been successfully applied.');
  });

  it('answers /readyz with 200', async () => {
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
  });

  it('runs the app as that user', () => {
    // chroot, env, sh: each execs the next, so the process started is node in the end.
    const cmdline = readFileSync(`/proc/${child!.pid}/cmdline`, 'utf8').split('\0');
    expect(cmdline).toContain('apps/api/dist/main.js');
    const status = readFileSync(`/proc/${child!.pid}/status`, 'utf8');
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
    const response = await fetch(`${url}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await response.text();
    expect(html).toMatch(/^<!DOCTYPE html>/i);
    expect(html).toContain('/_next/static/');
  });

  it('logs no error', () => {
    expect(errorLines(output)).toEqual([]);
  });
});
