import { describe, expect, it } from 'vitest';
import type { AgentTurn, ConversationState } from '../../media/src/agent/interfaces.ts';
import {
  DEFAULT_CALLER_SCRIPT,
  renderTemplate,
  ScriptedLanguageModel,
  ScriptedSpeechToText,
  ToneTextToSpeech,
} from '../../media/src/agent/scripted.ts';
import { synthesizeSpeech } from '../../media/src/audio/tones.ts';

const definition = (overrides: Partial<ConversationState> = {}): ConversationState => ({
  agentName: 'Ann',
  workflowDefinition: {
    steps: ['Am I speaking with {{initial_context.first_name}}?', { say: 'I am calling about your {{ initial_context.plan }} plan.' }, { ask: 'ignored: no say' }],
  },
  initialContext: { first_name: 'Sam', plan: 'gold' },
  dispositionCodes: { interested: { label: 'Interested' }, not_interested: {} },
  turns: [],
  ...overrides,
});

/** Plays the dialogue the way MediaSession does: history excludes the utterance being answered. */
async function dialogue(state: ConversationState, script = DEFAULT_CALLER_SCRIPT, maxTurns = 10): Promise<AgentTurn[]> {
  const llm = new ScriptedLanguageModel();
  const stt = new ScriptedSpeechToText(script);
  const replies: AgentTurn[] = [];
  let turns = [...state.turns];
  for (let turn = -1; turn < maxTurns; turn++) {
    const userText = turn < 0 ? null : await stt.transcribe(new Int16Array(0), turn);
    const reply = await llm.nextTurn({ ...state, turns }, userText);
    replies.push(reply);
    turns = [...turns, ...(userText === null ? [] : [{ role: 'user' as const, text: userText }]), { role: 'assistant' as const, text: reply.say }];
    if (reply.hangUp) break;
  }
  return replies;
}

describe('ScriptedSpeechToText', () => {
  it('returns the n-th caller line and repeats the last', async () => {
    const stt = new ScriptedSpeechToText();
    const lines = await Promise.all([0, 1, 2, 3, 4, 9].map((turn) => stt.transcribe(new Int16Array(160), turn)));
    expect(lines).toEqual(['Hello, who is this?', 'Yes, I have a minute.', 'That sounds good, thank you.', 'Goodbye.', 'Goodbye.', 'Goodbye.']);
    expect(() => new ScriptedSpeechToText([])).toThrow();
  });
});

describe('ScriptedLanguageModel', () => {
  it('produces a deterministic dialogue from the definition', async () => {
    const replies = await dialogue(definition());
    expect(replies).toEqual([
      { say: 'Hello, this is Ann.' },
      { say: 'Am I speaking with Sam?' },
      { say: 'I am calling about your gold plan.' },
      { say: 'Thank you for your time. Goodbye.', hangUp: true, gathered: { call_disposition: 'interested', turns: 3 } },
    ]);
    expect(await dialogue(definition())).toEqual(replies);
  });

  it('uses greeting and closing from the definition, with placeholders; unknown keys become empty', async () => {
    const replies = await dialogue(
      definition({
        workflowDefinition: {
          greeting: 'Hi {{initial_context.first_name}}, {{initial_context.missing}}this is Ann.',
          steps: [],
          closing: 'Bye {{initial_context.first_name}}!',
        },
      }),
    );
    expect(replies.map((r) => r.say)).toEqual(['Hi Sam, this is Ann.', 'Bye Sam!']);
    expect(replies[1]).toMatchObject({ hangUp: true, gathered: { turns: 1 } });
  });

  it("falls back to 'completed' without disposition codes and counts user turns", async () => {
    const replies = await dialogue(definition({ dispositionCodes: {}, workflowDefinition: { steps: ['a', 'b', 'c'] } }));
    expect(replies.at(-1)).toEqual({ say: 'Thank you for your time. Goodbye.', hangUp: true, gathered: { call_disposition: 'completed', turns: 4 } });
  });

  it('gives the same answer whether or not the history already contains the user utterance', async () => {
    const llm = new ScriptedLanguageModel();
    const before = { ...definition(), turns: [{ role: 'assistant' as const, text: 'Hello, this is Ann.' }] };
    const after = { ...before, turns: [...before.turns, { role: 'user' as const, text: 'Hi' }] };
    expect(await llm.nextTurn(before, 'Hi')).toEqual(await llm.nextTurn(after, 'Hi'));
  });

  it('renders non-string context values', () => {
    expect(renderTemplate('{{initial_context.n}}/{{initial_context.o}}/{{initial_context.z}}', { n: 3, o: { a: 1 }, z: null })).toBe('3/{"a":1}/');
    expect(renderTemplate('{{other.x}} stays', {})).toBe('{{other.x}} stays');
  });
});

describe('ToneTextToSpeech', () => {
  it('synthesizes the deterministic tones', async () => {
    expect(await new ToneTextToSpeech().synthesize('Hi')).toEqual(synthesizeSpeech('Hi'));
  });
});
