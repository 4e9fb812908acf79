import { statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** nginx on PATH, or in an sbin directory a non-root PATH often lacks (Debian installs it as /usr/sbin/nginx). */
export function findNginx(): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin'];
  for (const dir of dirs.filter(Boolean)) {
    const candidate = join(dir, 'nginx');
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}
