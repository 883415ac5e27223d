import { describe, expect, it } from 'vitest';
import { EVENT_RULES, matchesDetail, type DetailPattern } from '../../shared/events/event-rules.ts';

const analysisRule = EVENT_RULES.find((rule) => rule.target === 'callAnalysis')!;

describe('event rules', () => {
  it.each([
    ['a run with a pending analysis', { data: { analysis: { status: 'pending' } } }, true],
    ['a run whose analysis is recorded (published again)', { data: { analysis: { status: 'completed' } } }, true],
    ['a run without an analysis', { data: { analysis: null } }, false],
    ['an event from before analyses', { data: {} }, false],
  ])('sends call.completed to the analysis only for %s', (_, detail, expected) => {
    expect(matchesDetail(analysisRule.detail, detail)).toBe(expected);
  });

  it('matches EventBridge leaves: listed values, exists true and false, every field', () => {
    const pattern: DetailPattern = { a: ['x', 2], b: { c: [{ exists: false }] } };
    expect(matchesDetail(pattern, { a: 'x', b: {} })).toBe(true);
    expect(matchesDetail(pattern, { a: 2 })).toBe(true);
    expect(matchesDetail(pattern, { a: 'y', b: {} })).toBe(false);
    expect(matchesDetail(pattern, { a: 'x', b: { c: null } })).toBe(false);
    expect(matchesDetail({ a: [null] }, { a: null })).toBe(true);
    expect(matchesDetail(undefined, { anything: 1 })).toBe(true);
  });
});
