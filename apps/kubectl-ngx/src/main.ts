import { runCli } from './cli.js';

const interrupted = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => interrupted.abort());

void runCli(
  process.argv.slice(2),
  { out: (line) => process.stdout.write(`${line}\n`), err: (line) => process.stderr.write(`${line}\n`) },
  interrupted.signal,
).then((exitCode) => {
  // Pooled keep-alive connections and timers would hold the process: exit once the output is written.
  process.stdout.write('', () => process.exit(exitCode));
});
