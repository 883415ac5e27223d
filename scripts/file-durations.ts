import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Writes test/file-durations.json, the times the test sequencer (test/support/slowest-first.ts)
 * starts the slowest files by, from vitest JSON reports (`vitest run --reporter=json
 * --outputFile=report.json`): `npx tsx scripts/file-durations.ts report.json [more.json ...]`.
 * A file in several reports keeps its last time; files in no report keep the time they had.
 */
const root = fileURLToPath(new URL('..', import.meta.url));
const target = new URL('../test/file-durations.json', import.meta.url);
const reports = process.argv.slice(2);
if (!reports.length) {
  console.error('usage: tsx scripts/file-durations.ts report.json [more.json ...]');
  process.exit(2);
}
const durations = JSON.parse(readFileSync(target, 'utf8')) as Record<string, number>;
for (const report of reports) {
  const { testResults } = JSON.parse(readFileSync(report, 'utf8')) as {
    testResults: { name: string; startTime: number; endTime: number }[];
  };
  for (const file of testResults) durations[relative(root, file.name)] = Math.round(file.endTime - file.startTime);
}
const sorted = Object.fromEntries(Object.entries(durations).sort(([, a], [, b]) => b - a));
writeFileSync(target, `${JSON.stringify(sorted, null, 2)}\n`);
console.log(`${Object.keys(sorted).length} files timed in ${relative(root, fileURLToPath(target))}`);
