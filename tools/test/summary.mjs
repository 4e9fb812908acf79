// Prints the suite's closing line from Vitest's JSON reports plus the count of failed pre-test checks.
//   node tools/test/summary.mjs REPORT CHECKS_FAILED [--unit=DIR] [--unit-status=N] [--durations=FILE]
// REPORT is the integration run's report; DIR holds the unit runs' reports (one per Nx project, written by each
// project's `test` target or restored from Nx's cache); N is the exit status of that unit run, which counts as
// one failure when it failed without a failed test in DIR (a project whose tests could not start).
// A test file that failed to load counts as one failure. Exits 1 on any failure or when nothing ran.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const [file, checksFailedArg = '0', ...options] = process.argv.slice(2);
const option = (name) => options.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
let checksFailed = Number(checksFailedArg) || 0;

const count = (report) => {
  const files = report.testResults ?? [];
  const brokenFiles = files.filter(
    (result) =>
      result.status === 'failed' && !result.assertionResults?.some((test) => test.status === 'failed'),
  ).length;
  return {
    passed: report.numPassedTests ?? 0,
    failed: (report.numFailedTests ?? 0) + brokenFiles,
    skipped: (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0),
  };
};
const total = { passed: 0, failed: 0, skipped: 0 };
const add = (counts) => {
  for (const key of Object.keys(total)) total[key] += counts[key];
};

const unitDir = option('unit');
if (unitDir) {
  const unit = { passed: 0, failed: 0, skipped: 0 };
  let reports = [];
  try {
    reports = readdirSync(unitDir, { recursive: true }).filter((name) => String(name).endsWith('.json'));
  } catch {
    // no unit reports: counted below through the unit run's status
  }
  for (const name of reports) {
    try {
      const counts = count(JSON.parse(readFileSync(join(unitDir, String(name)), 'utf8')));
      for (const key of Object.keys(unit)) unit[key] += counts[key];
    } catch {
      console.log(`unreadable unit test report ${join(unitDir, String(name))}`);
      unit.failed += 1;
    }
  }
  if (Number(option('unit-status') ?? 0) !== 0 && unit.failed === 0) {
    console.log('the unit tests failed without a report of the failure (see the output above)');
    checksFailed += 1;
  }
  add(unit);
}

/** Each integration file's wall time, slowest first, as tools/test/file-durations-reporter.ts wrote them. */
const printDurations = (path) => {
  let files;
  try {
    files = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return; // no durations: a run without that reporter
  }
  console.log('integration files, slowest first (the files of project "integration" run side by side):');
  for (const { seconds, file, project } of files)
    console.log(
      `${seconds.toFixed(1).padStart(8)} s  ${file}${project === 'integration' ? '' : `  (${project})`}`,
    );
};

try {
  add(count(JSON.parse(readFileSync(file, 'utf8'))));
} catch {
  console.log(`no test report at ${file}`);
  checksFailed += 1;
}
const durations = option('durations');
if (durations) printDurations(durations);
const failed = total.failed + checksFailed;
console.log(`${total.passed} passed, ${failed} failed${total.skipped ? `, ${total.skipped} skipped` : ''}`);
process.exit(failed > 0 || total.passed === 0 ? 1 : 0);
