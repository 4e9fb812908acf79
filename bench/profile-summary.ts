import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CpuProfile } from './convergence/cpu-profile.js';
import { flameGraphSvg, selfTimes, timeByOrigin } from './convergence/flame-graph.js';
import { ROOT } from '../test/support/paths.js';

/**
 * Keeps a profile of the app for a closer look: raw in .data/profile/<name>.cpuprofile (for DevTools), its flame
 * graph beside it, and its largest costs (by origin, and by function's own time) printed.
 */
export function saveProfile(name: string, title: string, profile: CpuProfile): void {
  const dir = join(ROOT, '.data/profile');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
  writeFileSync(join(dir, `${name}.svg`), flameGraphSvg(profile, title));
  const origins = timeByOrigin(profile);
  const total = origins.reduce((sum, o) => sum + o.ms, 0);
  const share = (ms: number) => `${((ms / total) * 100).toFixed(0)}%`;
  console.log(`profile: ${(total / 1000).toFixed(2)} CPU s sampled, .data/profile/${name}.{cpuprofile,svg}`);
  console.log(
    `by origin: ${origins
      .slice(0, 10)
      .map((o) => `${o.where} ${share(o.ms)}`)
      .join(', ')}`,
  );
  console.log(
    `functions (self): ${selfTimes(profile)
      .slice(0, 15)
      .map((f) => `${f.name} (${f.where}) ${share(f.ms)}`)
      .join(', ')}`,
  );
}
