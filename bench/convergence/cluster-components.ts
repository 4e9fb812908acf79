import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { isAlive, readPid } from '../../test/support/cluster-processes.js';
import { ROOT } from '../../test/support/paths.js';
import { sleep } from '../../test/support/wait.js';

/** Restarts cluster components with the given environment for tools/cluster/up.sh (client limits). */
export async function restartComponents(components: string[], env: Record<string, string>): Promise<void> {
  for (const component of components) {
    const pid = readPid(component);
    process.kill(pid, 'SIGTERM');
    while (isAlive(pid)) await sleep(100);
  }
  await promisify(execFile)('bash', [join(ROOT, 'tools/cluster/up.sh')], {
    cwd: ROOT,
    env: { ...process.env, ...env },
  });
}
