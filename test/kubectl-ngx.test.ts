// `kubectl ngx`, installed with `npm install -g` from the packed plugin, run by the real kubectl against
// kube-apiserver alone and against the control plane: the same script of commands gives the same lines and exit
// codes through both (the history's change causes and the audit's timeline aside, which only the control plane
// keeps), and bad input gets kubectl's words and exit codes.
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CA_FILE,
  TOKEN_NAMES,
  startLeadingControlPlane,
  type ControlPlane,
} from './support/control-plane.js';
import { KUBECTL, kubectl, kubectlApply } from './support/kubectl.js';
import { controlPlaneKubeconfig, runNgx, type NgxOutcome } from './support/kubectl-ngx.js';
import { KUBECONFIG_PATH, ROOT } from './support/paths.js';
import { uniqueName, waitFor } from './support/wait.js';

const run = promisify(execFile);
const scratch = mkdtempSync(join(tmpdir(), 'ngx-plugin-'));
const PREFIX = join(scratch, 'global');
const DOORS = ['kube-apiserver', 'control-plane'] as const;
type Door = (typeof DOORS)[number];
const NS: Record<Door, string> = {
  'kube-apiserver': uniqueName('ngx-kube'),
  'control-plane': uniqueName('ngx-cp'),
};
const KUBECONFIG: Record<Door, string> = {
  'kube-apiserver': KUBECONFIG_PATH,
  'control-plane': '', // once the control plane runs
};
let cp: ControlPlane;

beforeAll(async () => {
  // The plugin as a user installs it: the package npm packs, installed globally (into a prefix of our own).
  const packed = join(scratch, 'pack');
  mkdirSync(packed);
  const { stdout } = await run('npm', ['pack', '--silent', '--pack-destination', packed], {
    cwd: join(ROOT, 'apps/kubectl-ngx'),
  });
  await run('npm', [
    'install',
    '-g',
    '--offline',
    '--no-fund',
    '--no-audit',
    '--prefix',
    PREFIX,
    join(packed, stdout.trim()),
  ]);
  for (const door of DOORS) await kubectl('create', 'namespace', NS[door]);
  cp = await startLeadingControlPlane(Object.values(NS));
  KUBECONFIG['control-plane'] = controlPlaneKubeconfig(cp, 'editor');
}, 180_000);

afterAll(async () => {
  await cp?.stop();
  for (const door of DOORS) await kubectl('delete', 'namespace', NS[door], '--wait=false').catch(() => {});
});

type Outcome = NgxOutcome;

/** `kubectl ngx <args>` through `door`, with only the installed plugin's bin folder added to PATH. */
const ngx = (door: Door, ...args: string[]) =>
  runNgx(join(PREFIX, 'bin'), KUBECONFIG[door], ['-n', NS[door], ...args]);

const CANARY = {
  apiVersion: 'mycompany.com/v1',
  kind: 'Nginx',
  metadata: { name: 'web' },
  spec: {
    replicas: 2,
    image: 'nginx:1.27',
    strategy: { type: 'Canary', canary: { steps: [{ setWeight: 50 }, { pause: {} }] } },
  },
};

async function progressing(door: Door): Promise<string | undefined> {
  const nginx = JSON.parse(await kubectl('get', 'nginx', 'web', '-n', NS[door], '-o', 'json')) as {
    status?: { conditions?: { type: string; reason: string }[] };
  };
  return nginx.status?.conditions?.find((c) => c.type === 'Progressing')?.reason;
}

const paused = (door: Door) =>
  waitFor(`the canary in ${door} to pause`, async () => (await progressing(door)) === 'CanaryPaused', {
    timeoutMs: 60_000,
  });

/** What varies between two runs of one script: ages, creation times, hashes stay (same templates). */
const normalize = (text: string) =>
  text.replace(/\b\d+(s|m\d*s?|h\d*m?)$/gm, '<age>').replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/g, '<time>');

const transcripts: Record<Door, [string, Outcome][]> = { 'kube-apiserver': [], 'control-plane': [] };

/** Runs `kubectl ngx <args>` through `door`, recording it in the door's transcript. */
async function step(door: Door, ...args: string[]): Promise<Outcome> {
  const outcome = await ngx(door, ...args);
  // What a status printed while waiting depends on timing; its verdict does not.
  const out = args[0] === 'status' ? outcome.out.split('\n').pop()! : outcome.out;
  transcripts[door].push([args.join(' '), { ...outcome, out: normalize(out), err: normalize(outcome.err) }]);
  return outcome;
}

describe.each(DOORS)('kubectl ngx through %s', (door) => {
  it('drives a canary: status as a gate, get, promote, abort, history, undo, pause, resume, set image, restart', async () => {
    await kubectlApply(JSON.stringify(CANARY), NS[door]);
    let outcome = await step(door, 'status', 'web', '--timeout', '60s');
    expect(outcome).toMatchObject({ code: 0 });
    expect(outcome.out).toMatch(/nginx "web" successfully rolled out$/);

    outcome = await step(door, 'get');
    expect(outcome.out).toMatch(
      /^NAME\s+READY\s+REVISION\s+PHASE\s+STEP\s+WEIGHT\s+ANALYSIS\s+AGE\nweb\s+2\/2\s+\S+\s+ReplicasReady\s/,
    );

    expect((await step(door, 'set', 'image', 'web', 'nginx:1.28')).out).toBe(
      'nginx.mycompany.com/web image updated',
    );
    await paused(door);
    outcome = await step(door, 'get', 'web');
    expect(outcome.out).toMatch(/\nweb\s+\d\/2\s+\S+\s+CanaryPaused\s+2\/2\s+50%\s+-\s/);

    // A CI gate on a canary waiting for promotion: 2, timed out.
    outcome = await step(door, 'status', 'web', '--timeout', '2s');
    expect(outcome).toMatchObject({ code: 2, err: 'error: timed out waiting for the condition' });

    expect((await step(door, 'promote', 'web', '--full')).out).toBe(
      'nginx.mycompany.com/web promoted (full)',
    );
    expect((await step(door, 'status', 'web', '--timeout', '60s')).code).toBe(0);

    outcome = await step(door, 'abort', 'web');
    expect(outcome.code).toBe(1);
    expect(outcome.err).toMatch(
      /^Error from server \(Conflict\): nginxes.mycompany.com "web": .*no canary in progress$/,
    );

    outcome = await step(door, 'history', 'web');
    expect(outcome.out).toMatch(
      /REVISION\s+HASH\s+IMAGE\s+CURRENT\s+CREATED\s+CHANGE-CAUSE\n1\s+\S+\s+nginx:1.27\s+\S+\s+.*\n2\s+\S+\s+nginx:1.28\s+\*\s/,
    );

    outcome = await step(door, 'undo', 'web', '--to-revision', '9');
    expect(outcome).toMatchObject({
      code: 1,
      err: 'Error from server (NotFound): nginxes.mycompany.com "web" has no revision 9 (it has 2, 1)',
    });

    // Back to revision 1: a canary again, aborted, which the gate reports as a failure.
    expect((await step(door, 'undo', 'web')).out).toBe('nginx.mycompany.com/web rolled back');
    await paused(door);
    expect((await step(door, 'abort', 'web')).out).toBe('nginx.mycompany.com/web aborted');
    outcome = await step(door, 'status', 'web', '--timeout', '60s');
    expect(outcome.code).toBe(1);
    expect(outcome.err).toMatch(/^error: nginx "web" rollout failed: CanaryAborted: /);

    expect((await step(door, 'pause', 'web')).out).toBe('nginx.mycompany.com/web paused');
    expect(await step(door, 'pause', 'web')).toMatchObject({
      code: 1,
      err: 'error: nginxes.mycompany.com "web" is already paused',
    });
    expect((await step(door, 'resume', 'web')).out).toBe('nginx.mycompany.com/web resumed');

    // A restart rolls every pod by the strategy (a canary here), each new pod carrying the time it asked for.
    expect((await step(door, 'restart', 'web')).out).toBe('nginx.mycompany.com/web restarted');
    await paused(door);
    await step(door, 'promote', 'web', '--full');
    expect((await step(door, 'status', 'web', '--timeout', '60s')).code).toBe(0);
    const pods = JSON.parse(
      await kubectl('get', 'pods', '-n', NS[door], '-l', 'mycompany.com/nginx=web', '-o', 'json'),
    ) as {
      items: { metadata: { annotations?: Record<string, string>; deletionTimestamp?: string } }[];
    };
    const live = pods.items.filter((pod) => !pod.metadata.deletionTimestamp);
    expect(live.length).toBe(2);
    for (const pod of live)
      expect(pod.metadata.annotations?.['kubectl.kubernetes.io/restartedAt']).toMatch(/Z$/);

    expect(await step(door, 'get', 'nope')).toMatchObject({
      code: 1,
      err: 'Error from server (NotFound): nginxes.mycompany.com "nope" not found',
    });
  }, 300_000);
});

describe('the two doors', () => {
  it('gave the same lines and exit codes to the same commands, but for who made each revision', () => {
    const withoutCauses = (entries: [string, Outcome][]) =>
      entries.map(([command, outcome]) => [
        command,
        command.startsWith('history')
          ? { ...outcome, out: outcome.out.replace(/(<time>)\s+.*$/gm, '$1') }
          : outcome,
      ]);
    expect(transcripts['kube-apiserver'].length).toBe(20);
    expect(withoutCauses(transcripts['control-plane'])).toEqual(withoutCauses(transcripts['kube-apiserver']));
  });

  it('names who made each revision through the control plane; kube-apiserver alone does not know', () => {
    const history = (door: Door) => transcripts[door].find(([command]) => command === 'history web')![1].out;
    expect(history('control-plane')).toContain(`${TOKEN_NAMES.editor} patch via controlplane`);
    expect(history('kube-apiserver')).toMatch(/<none>$/m);
  });
});

/** `kubectl ngx <args>` left running through `door`, its output so far in `seen()`; `stop()` ends it (Ctrl-C). */
function following(door: Door, ...args: string[]) {
  const child = spawn(KUBECTL, ['ngx', '-n', NS[door], ...args], {
    env: { ...process.env, PATH: `${join(PREFIX, 'bin')}:${process.env.PATH}`, KUBECONFIG: KUBECONFIG[door] },
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  return {
    seen: () => output,
    stop: async () => {
      child.kill('SIGINT');
      return exited;
    },
  };
}

describe.each(DOORS)('following through %s', (door) => {
  it('get --watch prints a row at each change, and ends on Ctrl-C with 0', async () => {
    const watch = following(door, 'get', 'web', '--watch');
    try {
      await waitFor('the first row', () => /\nweb\s+2\/2\s/.test(watch.seen()));
      await kubectl('scale', 'nginx', 'web', '-n', NS[door], '--replicas=3');
      await waitFor('a row with 3 desired', () => /\nweb\s+\d\/3\s/.test(watch.seen()), {
        timeoutMs: 30_000,
      });
    } finally {
      expect(await watch.stop()).toBe(0);
    }
    expect(watch.seen().split('\n')[0]).toMatch(/^NAME\s+READY/);
  });
});

describe('the timeline and why', () => {
  it('timeline --follow prints new entries as they are written', async () => {
    const follow = following('control-plane', 'timeline', 'web', '--follow', '--since', '10m');
    try {
      await waitFor('the page', () => follow.seen().includes(TOKEN_NAMES.editor));
      const before = follow.seen().length;
      expect((await ngx('control-plane', 'restart', 'web')).code).toBe(0);
      await waitFor(
        'the restart live',
        () => follow.seen().slice(before).includes(`${TOKEN_NAMES.editor} (editor): patch`),
        { timeoutMs: 30_000 },
      );
    } finally {
      expect(await follow.stop()).toBe(0);
    }
  });

  it('reads the audit through the control plane: causes in words, folded reconciles, the pod back to its cause', async () => {
    const timeline = await ngx('control-plane', 'timeline', 'web', '--since', '1h');
    expect(timeline.code).toBe(0);
    expect(timeline.out).toContain(`${TOKEN_NAMES.editor}`);
    expect(timeline.out).toMatch(/← .* via controlplane/);
    const pod = (
      await kubectl('get', 'pods', '-n', NS['control-plane'], '-l', 'mycompany.com/nginx=web', '-o', 'name')
    )
      .split('\n')[0]!
      .replace('pod/', '');
    const why = await ngx('control-plane', 'why', 'web', pod);
    expect(why.code).toBe(0);
    expect(why.out.split('\n')[0]).toBe(`pod ${pod}: caused by ${TOKEN_NAMES.editor} via controlplane`);
  });

  it('says what it needs against kube-apiserver alone', async () => {
    for (const command of [
      ['timeline', 'web'],
      ['why', 'web', 'some-pod'],
    ])
      expect(await ngx('kube-apiserver', ...command)).toMatchObject({
        code: 1,
        err: expect.stringMatching(
          /^error: (timeline|why) reads the control plane's audit, which kube-apiserver does not keep/,
        ),
      });
  });
});

describe('krew', () => {
  it('installs the released archive from its manifest, and kubectl runs the same plugin from krew’s bin', async () => {
    const tools = (
      await run('bash', [join(ROOT, 'tools/kubectl-ngx/krew-tools.sh')], { timeout: 600_000 })
    ).stdout.trim();
    const manifest = (
      await run('bash', [
        join(ROOT, 'tools/kubectl-ngx/krew-release.sh'),
        'https://downloads.mycompany.example/ngx',
      ])
    ).stdout.trim();
    const { stderr } = await run(join(tools, 'validate-krew-manifest'), [
      '-manifest',
      manifest,
      '-skip-install',
    ]);
    expect(stderr).toContain('structural validation OK');
    const krewRoot = join(scratch, 'krew');
    const archive = join(dirname(manifest), 'kubectl-ngx-v0.1.0.tar.gz');
    const env = { ...process.env, KREW_ROOT: krewRoot };
    await run(join(tools, 'krew'), ['install', `--manifest=${manifest}`, `--archive=${archive}`], { env });
    const viaKrew = await run(KUBECTL, ['ngx', '-n', NS['kube-apiserver'], 'get', 'web', '-o', 'json'], {
      env: {
        ...process.env,
        PATH: `${join(krewRoot, 'bin')}:${process.env.PATH}`,
        KUBECONFIG: KUBECONFIG_PATH,
      },
    });
    const viaNpm = await ngx('kube-apiserver', 'get', 'web', '-o', 'json');
    expect(JSON.parse(viaKrew.stdout)).toEqual(JSON.parse(viaNpm.out));
  }, 660_000);
});

describe('bad input', () => {
  it.each([
    [
      ['frobnicate'],
      'error: unknown command "frobnicate" for "kubectl ngx"\nRun \'kubectl ngx --help\' for usage.',
    ],
    [['get', '--bogus'], "error: unknown flag: --bogus\nSee 'kubectl ngx get --help' for usage."],
    [['get', '-Z'], "error: unknown shorthand flag: 'Z' in -Z\nSee 'kubectl ngx get --help' for usage."],
    [
      ['status', 'web', '--timeout'],
      "error: flag needs an argument: --timeout\nSee 'kubectl ngx status --help' for usage.",
    ],
    [
      ['status', 'web', '--timeout', '5x'],
      'error: invalid argument "5x" for "--timeout" flag: time: invalid duration "5x"\nSee \'kubectl ngx status --help\' for usage.',
    ],
    [['promote'], "error: promote needs NAME [--full]\nSee 'kubectl ngx promote --help' for usage."],
    [
      ['set', 'imag', 'web', 'x'],
      'error: unknown command "imag" for "kubectl ngx set"\nSee \'kubectl ngx set --help\' for usage.',
    ],
    [
      ['get', 'web', '-o', 'wide2'],
      'error: unable to match a printer suitable for the output format "wide2", allowed formats are: json,yaml',
    ],
    [
      ['undo', 'web', '--to-revision', '0'],
      expect.stringMatching(/^error: invalid argument "0" for "--to-revision" flag/),
    ],
  ])("kubectl ngx %j exits 1 with kubectl's words", async (args, err) => {
    for (const door of DOORS) expect(await ngx(door, ...args)).toEqual({ code: 1, out: '', err });
  });

  it('answers 401 as kubectl does, and a server that is not there as kubectl does', async () => {
    const bad = join(scratch, 'bad-token.kubeconfig');
    writeFileSync(
      bad,
      `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "${cp.httpsUrl}", certificate-authority: "${CA_FILE}"}}]\nusers: [{name: u, user: {token: wrong-token}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\n`,
    );
    const env = { ...process.env, PATH: `${join(PREFIX, 'bin')}:${process.env.PATH}` };
    const failed = await run(KUBECTL, ['ngx', 'get', '--kubeconfig', bad], { env }).catch(
      (error: Outcome & { stderr: string }) => error,
    );
    expect(failed).toMatchObject({
      code: 1,
      stderr: 'error: You must be logged in to the server (Unauthorized)\n',
    });
    const gone = join(scratch, 'gone.kubeconfig');
    writeFileSync(
      gone,
      (await import('node:fs')).readFileSync(bad, 'utf8').replace(cp.httpsUrl, 'https://127.0.0.1:1'),
    );
    const refused = await run(KUBECTL, ['ngx', 'get', '--kubeconfig', gone], { env }).catch(
      (error: Outcome & { stderr: string }) => error,
    );
    expect(refused).toMatchObject({
      code: 1,
      stderr:
        'The connection to the server 127.0.0.1:1 was refused - did you specify the right host or port?\n',
    });
  });
});
