// Prints the suite's closing line from Vitest's JSON report plus the count of failed pre-test checks.
// A test file that failed to load counts as one failure. Exits 1 on any failure or when nothing ran.
import { readFileSync } from 'node:fs';

const [file, checksFailedArg = '0'] = process.argv.slice(2);
const checksFailed = Number(checksFailedArg) || 0;
let report;
try {
  report = JSON.parse(readFileSync(file, 'utf8'));
} catch {
  console.log(`no test report at ${file}`);
  console.log(`0 passed, ${checksFailed + 1} failed`);
  process.exit(1);
}
const files = report.testResults ?? [];
const brokenFiles = files.filter(
  (result) =>
    result.status === 'failed' && !result.assertionResults?.some((test) => test.status === 'failed'),
).length;
const passed = report.numPassedTests ?? 0;
const failed = (report.numFailedTests ?? 0) + brokenFiles + checksFailed;
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
