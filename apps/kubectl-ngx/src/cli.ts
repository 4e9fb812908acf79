import { parseInvocation, usage, type CommandName, type Invocation } from './args.js';
import { errorOutput } from './cli-error.js';
import { get } from './commands/get.js';
import { abort, pauseOrResume, promote, restart, setImage } from './commands/requests.js';
import { history, undo } from './commands/revisions.js';
import { status } from './commands/status.js';
import { timeline, why } from './commands/timeline.js';
import { connect, loadKubeConfig, type Connection } from './connection.js';
import { ControlPlaneDoor } from './control-plane-door.js';
import { KubeApiServerDoor } from './kube-apiserver-door.js';
import type { NginxDoor } from './nginx-door.js';
import type { Output } from './output.js';

type Handler = (
  connection: Connection,
  door: NginxDoor,
  args: string[],
  flags: Record<string, string | boolean | undefined>,
  output: Output,
  signal: AbortSignal,
) => Promise<number>;

const HANDLERS: Record<CommandName, Handler> = {
  get: (connection, _door, args, flags, output, signal) => get(connection, args, flags, output, signal),
  status: (connection, _door, args, flags, output, signal) => status(connection, args, flags, output, signal),
  promote,
  abort,
  pause: pauseOrResume(true),
  resume: pauseOrResume(false),
  undo,
  history,
  set: setImage,
  restart,
  why,
  timeline,
};

/**
 * Runs `kubectl ngx <argv>`: answers with the exit code, having written what kubectl would to `output`. `signal`
 * ends a `--watch` or `--follow` (Ctrl-C).
 */
export async function runCli(argv: readonly string[], output: Output, signal: AbortSignal): Promise<number> {
  let server = '';
  try {
    const parsed = parseInvocation(argv);
    if ('help' in parsed) {
      output.out(usage(parsed.help));
      return 0;
    }
    const invocation: Invocation = parsed;
    const config = loadKubeConfig(invocation);
    server = config.getCurrentCluster()!.server;
    const connection = await connect(config, invocation);
    const door =
      connection.kind === 'control-plane'
        ? new ControlPlaneDoor(connection.client)
        : new KubeApiServerDoor(connection.client);
    try {
      return await HANDLERS[invocation.command](
        connection,
        door,
        invocation.args,
        invocation.flags,
        output,
        signal,
      );
    } finally {
      connection.client.close();
    }
  } catch (error) {
    const { text, exitCode } = errorOutput(error, server);
    output.err(text);
    return exitCode;
  }
}
