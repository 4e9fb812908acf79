// A Vitest reporter that writes each test file's wall time to .data/test-durations.json (tools/test/summary.mjs
// prints them). Vitest's JSON report leaves the beforeAll/afterAll hooks out of a file's time, where an
// integration file spends much of it (starting the app, a browser, Prometheus).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

export const DURATIONS_FILE = '.data/test-durations.json';

/** One file: its path from the repository root, its Vitest project, and the seconds it took from import to end. */
export interface FileDuration {
  file: string;
  project: string;
  seconds: number;
}

export default class FileDurationsReporter implements Reporter {
  private readonly files: FileDuration[] = [];

  onTestModuleEnd(module: TestModule): void {
    const d = module.diagnostic();
    const ms =
      d.environmentSetupDuration + d.prepareDuration + d.collectDuration + d.setupDuration + d.duration;
    this.files.push({
      file: relative(process.cwd(), module.moduleId),
      project: module.project.name,
      seconds: Math.round(ms / 100) / 10,
    });
  }

  onTestRunEnd(): void {
    mkdirSync(dirname(DURATIONS_FILE), { recursive: true });
    writeFileSync(
      DURATIONS_FILE,
      JSON.stringify(
        this.files.sort((a, b) => b.seconds - a.seconds),
        null,
        2,
      ),
    );
  }
}
