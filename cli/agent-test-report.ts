/**
 * What the agent-test CLI prints and writes, from a finished test run (the API's `TestRun`):
 * the summary table, JUnit XML, and the exit code. Pure.
 */
import type { components } from '../client/index.ts';

export type TestRun = components['schemas']['TestRun'];

const pad = (text: string, width: number) =>
  text.length > width ? `${text.slice(0, width - 1)}…` : text.padEnd(width);

/**
 * The cases with a verdict that `reported` (test ids) does not hold yet, which it then does: the
 * progress lines while a run goes on. Cases finish in any order, not in the list's.
 */
export function newlyFinished(run: TestRun, reported: Set<string>): TestRun['cases'] {
  const finished = run.cases.filter((item) => item.verdict !== 'pending' && !reported.has(item.test_id));
  for (const item of finished) reported.add(item.test_id);
  return finished;
}

/** One line per case (verdict, attempts passed, name), then the failed expectations with their reasons. */
export function summaryTable(run: TestRun): string {
  const lines = [
    `${pad('VERDICT', 10)} ${pad('PASSED', 8)} ${pad('LATENCY', 9)} CASE`,
    ...run.cases.map((item) => {
      const latencies = item.attempts.flatMap((attempt) => (attempt.latency_ms === null ? [] : [attempt.latency_ms]));
      const latency = latencies.length ? `${Math.max(...latencies)} ms` : '-';
      return `${pad(item.verdict.toUpperCase(), 10)} ${pad(`${item.passed_attempts}/${run.repeat}`, 8)} ${pad(latency, 9)} ${item.name}`;
    }),
  ];
  for (const item of run.cases) {
    for (const attempt of item.attempts) {
      if (attempt.error) lines.push(`  ${item.name} #${attempt.attempt}: ${attempt.error}`);
      for (const result of attempt.expectations)
        if (!result.passed) lines.push(`  ${item.name} #${attempt.attempt}: ${result.type}: ${result.reason}`);
    }
  }
  const { summary } = run;
  lines.push(
    `${summary.passed} passed, ${summary.failed} failed, ${summary.errors} errors${summary.cancelled ? `, ${summary.cancelled} cancelled` : ''} of ${summary.cases} (test run ${run.id}, version ${run.definition_id}, $${summary.cost_usd.toFixed(4)})`,
  );
  return lines.join('\n');
}

const xml = (text: string) =>
  text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);

/** JUnit XML: one testcase per case, a failure (or error) with each failed expectation's reason. */
export function junitXml(run: TestRun, suiteName: string): string {
  const { summary } = run;
  const cases = run.cases.map((item) => {
    const reasons = item.attempts.flatMap((attempt) => [
      ...(attempt.error ? [`#${attempt.attempt}: ${attempt.error}`] : []),
      ...attempt.expectations
        .filter((result) => !result.passed)
        .map((result) => `#${attempt.attempt} ${result.type}: ${result.reason}`),
    ]);
    const seconds = item.attempts.reduce(
      (sum, attempt) => sum + (Date.parse(attempt.ended_at) - Date.parse(attempt.started_at)) / 1000,
      0,
    );
    const body =
      item.verdict === 'passed'
        ? ''
        : item.verdict === 'failed'
          ? `<failure message="${xml(reasons[0] ?? 'failed')}">${xml(reasons.join('\n'))}</failure>`
          : item.verdict === 'error'
            ? `<error message="${xml(reasons[0] ?? 'error')}">${xml(reasons.join('\n'))}</error>`
            : `<skipped message="${item.verdict}"/>`;
    return `    <testcase classname="${xml(suiteName)}" name="${xml(item.name)}" time="${seconds.toFixed(3)}">${body}</testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites tests="${summary.cases}" failures="${summary.failed}" errors="${summary.errors}">`,
    `  <testsuite name="${xml(suiteName)}" tests="${summary.cases}" failures="${summary.failed}" errors="${summary.errors}" skipped="${summary.cancelled + summary.pending}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

/** 0 only when every case passed. */
export const exitCode = (run: TestRun): number =>
  run.status === 'completed' && run.cases.every((item) => item.verdict === 'passed') ? 0 : 1;
