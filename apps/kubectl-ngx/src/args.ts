import { parseArgs } from 'node:util';
import { CliError } from './cli-error.js';

type OptionSpec = { type: 'boolean' | 'string'; short?: string };

/** kubectl's flags every subcommand takes: where the cluster and the namespace are. */
const GLOBAL_OPTIONS = {
  namespace: { type: 'string', short: 'n' },
  kubeconfig: { type: 'string' },
  context: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies Record<string, OptionSpec>;

/** One subcommand: its flags, how many NAME-like arguments it takes (min, max), and its usage line. */
interface CommandSpec {
  options: Record<string, OptionSpec>;
  args: readonly [number, number];
  usage: string;
  summary: string;
}

/** The subcommands, in the order `kubectl ngx --help` lists them. */
export const COMMANDS = {
  get: {
    options: {
      watch: { type: 'boolean', short: 'w' },
      'all-namespaces': { type: 'boolean', short: 'A' },
      output: { type: 'string', short: 'o' },
    },
    args: [0, 1],
    usage: 'get [NAME] [--watch] [-A] [-o json|yaml]',
    summary: 'Show Nginxes: ready/desired, revision, rollout phase, canary step and weight, analysis verdict',
  },
  status: {
    options: { timeout: { type: 'string' } },
    args: [1, 1],
    usage: 'status NAME [--timeout D]',
    summary: 'Wait for the rollout: exit 0 rolled out, 1 failed/aborted/rolled back, 2 timed out',
  },
  promote: {
    options: { full: { type: 'boolean' } },
    args: [1, 1],
    usage: 'promote NAME [--full]',
    summary: 'Move a canary past its current step (--full: past every step)',
  },
  abort: { options: {}, args: [1, 1], usage: 'abort NAME', summary: 'Abort the canary in progress' },
  pause: { options: {}, args: [1, 1], usage: 'pause NAME', summary: 'Stop rolling out template changes' },
  resume: { options: {}, args: [1, 1], usage: 'resume NAME', summary: 'Roll out template changes again' },
  undo: {
    options: { 'to-revision': { type: 'string' } },
    args: [1, 1],
    usage: 'undo NAME [--to-revision N]',
    summary: 'Roll back to the previous revision, or to revision N',
  },
  history: { options: {}, args: [1, 1], usage: 'history NAME', summary: 'List the revisions' },
  set: {
    options: {},
    args: [3, 3],
    usage: 'set image NAME IMAGE',
    summary: 'Set the image every pod runs',
  },
  restart: { options: {}, args: [1, 1], usage: 'restart NAME', summary: 'Replace every pod by a rollout' },
  why: {
    options: {},
    args: [2, 2],
    usage: 'why NAME POD',
    summary: 'Why a pod was created or deleted, back to the change or person that caused it',
  },
  timeline: {
    options: { follow: { type: 'boolean', short: 'f' }, since: { type: 'string' } },
    args: [1, 1],
    usage: 'timeline NAME [--follow] [--since 1h]',
    summary: 'What happened to an Nginx, read at a glance',
  },
} as const satisfies Record<string, CommandSpec>;

export type CommandName = keyof typeof COMMANDS;

/** A parsed command line. */
export interface Invocation {
  command: CommandName;
  /** The arguments after the command (for `set`, `image` first). */
  args: string[];
  flags: Record<string, string | boolean | undefined>;
  namespace?: string;
  kubeconfig?: string;
  context?: string;
}

/** What `--help` asks for: the whole plugin's usage, or one command's. */
export interface HelpRequest {
  help: CommandName | 'all';
}

/** Global flags that take a value as the next argument when written without `=`. */
const VALUE_FLAGS = new Set(['-n', '--namespace', '--kubeconfig', '--context']);

/** The index of the first argument that is not a flag nor a global flag's value: the command; -1 when none. */
function commandIndex(argv: readonly string[]): number {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') return i + 1 < argv.length ? i + 1 : -1;
    if (!arg.startsWith('-') || arg === '-') return i;
    if (VALUE_FLAGS.has(arg)) i++;
  }
  return -1;
}

/** kubectl's words for what node's parseArgs refused. */
function flagError(error: unknown, command: string | undefined): CliError {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: string }).code;
  const hint = `See 'kubectl ngx ${command ? `${command} ` : ''}--help' for usage.`;
  const flag = /'(-[^' ]*)/.exec(message)?.[1] ?? '';
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION')
    return new CliError(
      flag.startsWith('--')
        ? `unknown flag: ${flag}`
        : `unknown shorthand flag: '${flag.slice(1, 2)}' in ${flag}`,
      hint,
    );
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE')
    return /argument missing/.test(message)
      ? new CliError(`flag needs an argument: ${flag}`, hint)
      : new CliError(`flag ${flag} takes no value`, hint);
  return new CliError(message, hint);
}

/**
 * Reads `kubectl ngx …`'s arguments (kubectl hands a plugin every argument after its name): the command, its
 * arguments and flags, and kubectl's global flags wherever they stand. A mistake is a CliError in kubectl's words.
 * Pure.
 */
export function parseInvocation(argv: readonly string[]): Invocation | HelpRequest {
  const at = commandIndex(argv);
  if (at < 0) {
    if (argv.includes('-h') || argv.includes('--help') || argv.length === 0) return { help: 'all' };
    try {
      parseArgs({ args: [...argv], options: GLOBAL_OPTIONS, allowPositionals: true });
    } catch (error) {
      throw flagError(error, undefined);
    }
    return { help: 'all' };
  }
  const name = argv[at]!;
  if (!Object.hasOwn(COMMANDS, name))
    throw new CliError(`unknown command "${name}" for "kubectl ngx"`, "Run 'kubectl ngx --help' for usage.");
  const command = name as CommandName;
  const spec: CommandSpec = COMMANDS[command];
  const rest = [...argv.slice(0, at), ...argv.slice(at + 1)];
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: rest,
      options: { ...GLOBAL_OPTIONS, ...spec.options },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw flagError(error, command);
  }
  const { namespace, kubeconfig, context, help, ...flags } = parsed.values as Record<
    string,
    string | boolean | undefined
  >;
  if (help) return { help: command };
  const args = parsed.positionals;
  const [min, max] = spec.args;
  const hint = `See 'kubectl ngx ${command} --help' for usage.`;
  if (command === 'set' && args[0] !== undefined && args[0] !== 'image')
    throw new CliError(`unknown command "${args[0]}" for "kubectl ngx set"`, hint);
  if (args.length < min)
    throw new CliError(
      `${command === 'set' && args.length > 0 ? 'set image' : command} needs ${spec.usage.replace(/^\S+( image)? /, '')}`,
      hint,
    );
  if (args.length > max) throw new CliError(`unexpected argument "${args[max]}"`, hint);
  return {
    command,
    args,
    flags,
    ...(typeof namespace === 'string' ? { namespace } : {}),
    ...(typeof kubeconfig === 'string' ? { kubeconfig } : {}),
    ...(typeof context === 'string' ? { context } : {}),
  };
}

/** `kubectl ngx --help`, or one command's usage. */
export function usage(of: CommandName | 'all'): string {
  const globals =
    "Global flags:\n  -n, --namespace NS   the namespace (default: the context's)\n" +
    '      --kubeconfig F   the kubeconfig file\n      --context NAME   the kubeconfig context';
  if (of !== 'all') {
    const spec: CommandSpec = COMMANDS[of];
    return `${spec.summary}.\n\nUsage:\n  kubectl ngx ${spec.usage}\n\n${globals}`;
  }
  const lines = Object.values(COMMANDS as Record<string, CommandSpec>).map(
    (spec) => `  ${spec.usage.padEnd(40)} ${spec.summary}`,
  );
  return (
    'kubectl ngx drives mycompany.com/v1 Nginx rollouts, against kube-apiserver or the control plane.\n\n' +
    `Commands:\n${lines.join('\n')}\n\n${globals}`
  );
}
