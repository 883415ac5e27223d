import { describe, expect, it } from 'vitest';
import { exitCode, junitXml, newlyFinished, summaryTable, type TestRun } from '../../cli/agent-test-report.ts';

const attempt = (verdict: 'passed' | 'failed' | 'error', reason?: string) => ({
  attempt: 1,
  verdict,
  expectations: reason ? [{ index: 0, type: 'disposition' as const, passed: false, reason }] : [],
  transcript: [],
  tool_calls: [],
  path: [],
  conversation_id: 7,
  latency_ms: 420,
  turn_latencies_ms: [],
  cost_usd: 0.001,
  model_tokens: { input_tokens: 0, output_tokens: 0 },
  error: verdict === 'error' ? 'The conversation took longer than its 120 s' : null,
  started_at: '2026-11-26T10:00:00.000Z',
  ended_at: '2026-11-26T10:00:02.500Z',
});

const run = (verdicts: ('passed' | 'failed' | 'error')[]): TestRun => ({
  id: 31,
  workflow_id: 42,
  definition_id: 118,
  status: 'completed',
  repeat: 1,
  parallelism: 2,
  created_at: '2026-11-26T10:00:00.000Z',
  completed_at: '2026-11-26T10:00:05.000Z',
  summary: {
    cases: verdicts.length,
    passed: verdicts.filter((v) => v === 'passed').length,
    failed: verdicts.filter((v) => v === 'failed').length,
    errors: verdicts.filter((v) => v === 'error').length,
    pending: 0,
    cancelled: 0,
    cost_usd: 0.002,
  },
  cases: verdicts.map((verdict, i) => ({
    test_id: `test_${String(i).padStart(16, '0')}`,
    name: i ? `Case <${i}> & "more"` : 'Card',
    verdict,
    passed_attempts: verdict === 'passed' ? 1 : 0,
    attempts: [attempt(verdict, verdict === 'failed' ? "the disposition is 'completed'" : undefined)],
  })),
});

describe('agent-test CLI report', () => {
  it('reports each finished case once, whatever order the cases finish in', () => {
    const reported = new Set<string>();
    const second = run(['passed', 'failed']);
    second.cases[0]!.verdict = 'pending';
    // The second case finishes first, then the first: each is reported once.
    expect(newlyFinished(second, reported).map((item) => item.test_id)).toEqual([second.cases[1]!.test_id]);
    const both = run(['passed', 'failed']);
    expect(newlyFinished(both, reported).map((item) => item.test_id)).toEqual([both.cases[0]!.test_id]);
    expect(newlyFinished(both, reported)).toEqual([]);
  });

  it('exits 0 only when every case passed', () => {
    expect(exitCode(run(['passed', 'passed']))).toBe(0);
    expect(exitCode(run(['passed', 'failed']))).toBe(1);
    expect(exitCode({ ...run(['passed']), status: 'cancelled' })).toBe(1);
  });

  it('prints a line per case and each failed expectation with its reason', () => {
    const table = summaryTable(run(['passed', 'failed']));
    expect(table.split('\n')).toEqual([
      'VERDICT    PASSED   LATENCY   CASE',
      'PASSED     1/1      420 ms    Card',
      'FAILED     0/1      420 ms    Case <1> & "more"',
      `  Case <1> & "more" #1: disposition: the disposition is 'completed'`,
      '1 passed, 1 failed, 0 errors of 2 (test run 31, version 118, $0.0020)',
    ]);
  });

  it('writes JUnit XML with escaped names, a failure and an error with their reasons', () => {
    const report = junitXml(run(['passed', 'failed', 'error']), 'agent a');
    expect(report).toContain('<testsuites tests="3" failures="1" errors="1">');
    expect(report).toContain('<testcase classname="agent a" name="Card" time="2.500"></testcase>');
    expect(report).toContain(
      `name="Case &lt;1&gt; &amp; &quot;more&quot;" time="2.500"><failure message="#1 disposition: the disposition is &apos;completed&apos;">`,
    );
    expect(report).toContain('<error message="#1: The conversation took longer than its 120 s">');
  });
});
