/**
 * "Make a test from this call": a test case drafted from a real conversation, for the customer to
 * edit and save. The caller's turns become the simulated caller's exact script; the outcome (its
 * disposition, the variables it gathered, the last flow step) the expectations, only those the
 * agent still has (so the draft saves as it is). Pure.
 */
import type { Expectation, TestSubject } from './agent-tests.ts';
import { isVoiceOnly } from './caller-actions.ts';

/** What of the conversation a draft is made from. */
export interface DraftSource {
  id: number;
  name: string;
  initial_context: Record<string, unknown>;
  gathered_context: Record<string, unknown>;
  /** The flow steps entered, in order (empty for a flat definition). */
  path: readonly string[];
  transcript: readonly { role: 'user' | 'assistant'; text: string }[];
  /** The language the conversation was held in: the agent's `workflow_configurations.language`. */
  language: string | undefined;
}

/** A script turn's and the name's limits (the case schema's), the turns one under the case's cap. */
export const DRAFT_LIMITS = { scriptTurns: 49, turnChars: 2000, nameChars: 255, variables: 16 } as const;

/** A case's language pattern (SimulatedCaller.language): BCP 47, its first subtag in lower case. */
const CASE_LANGUAGE = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;

/**
 * The caller's language in a case, from the conversation's (`en-US` stays, `EN` becomes `en`); one
 * the case cannot take, or none, is the calls' default, `en`.
 */
export function draftLanguage(language: string | undefined): string {
  const [first = '', ...rest] = (language ?? '').trim().split('-');
  const tag = [first.toLowerCase(), ...rest].join('-');
  return tag.length <= 35 && CASE_LANGUAGE.test(tag) ? tag : 'en';
}

export function draftTestCase(source: DraftSource, subject: TestSubject) {
  const script = source.transcript
    .filter((line) => line.role === 'user' && line.text.trim())
    .slice(0, DRAFT_LIMITS.scriptTurns)
    .map((line) => line.text.trim().slice(0, DRAFT_LIMITS.turnChars));
  const expectations: Expectation[] = [];
  const disposition = source.gathered_context.call_disposition;
  if (typeof disposition === 'string' && subject.dispositions.includes(disposition))
    expectations.push({ type: 'disposition', code: disposition });
  const gathered = Object.entries(source.gathered_context).filter(
    ([name, value]) =>
      name !== 'call_disposition' && value !== null && (subject.variables === null || subject.variables.includes(name)),
  );
  for (const [variable, value] of gathered.slice(0, DRAFT_LIMITS.variables))
    expectations.push({ type: 'variable_gathered', variable, value });
  const lastStep = source.path.at(-1);
  if (lastStep && subject.steps?.includes(lastStep))
    expectations.push({ type: 'step_reached', step: lastStep, reached: true });
  // A conversation that left nothing to check by rule: the customer writes what it must show.
  if (!expectations.length)
    expectations.push({
      type: 'judged',
      criteria: 'The agent answers what the caller asks, as it did in the real call',
    });
  return {
    name: `From conversation ${source.id}: ${source.name}`.slice(0, DRAFT_LIMITS.nameChars),
    // A call's keypad entries ([pressed 42]) replay only on a voice line; otherwise text, the fast default.
    mode: script.some(isVoiceOnly) ? ('voice' as const) : ('text' as const),
    caller: {
      persona: `The caller of conversation ${source.id}`,
      goal: script[0] ?? 'What the caller of the real conversation wanted',
      language: draftLanguage(source.language),
      behaviour: ['cooperative' as const],
      ...(script.length ? { script } : {}),
    },
    initial_context: source.initial_context,
    tool_mocks: [],
    call_real_tools: false,
    max_turns: Math.max(1, script.length + 1),
    timeout_seconds: 120,
    tags: ['from-call'],
    expectations,
  };
}
