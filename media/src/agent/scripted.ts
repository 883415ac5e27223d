/**
 * Deterministic local stand-ins for STT / LLM / TTS: the same agent definition and caller
 * script always produce the same dialogue, so local runs and tests are reproducible.
 */
import { synthesizeSpeech } from '../audio/tones.ts';
import type { AgentTurn, ConversationState, LanguageModel, SpeechToText, TextToSpeech } from './interfaces.ts';

export const DEFAULT_CALLER_SCRIPT: readonly string[] = [
  'Hello, who is this?',
  'Yes, I have a minute.',
  'That sounds good, thank you.',
  'Goodbye.',
];

export const DEFAULT_CLOSING = 'Thank you for your time. Goodbye.';

/** Ignores the audio and returns line `turn` of the script (the last line repeats). */
export class ScriptedSpeechToText implements SpeechToText {
  private readonly script: readonly string[];

  constructor(script: readonly string[] = DEFAULT_CALLER_SCRIPT) {
    if (script.length === 0) throw new Error('caller script must not be empty');
    this.script = script;
  }

  async transcribe(_utterance: Int16Array, turn: number): Promise<string> {
    return this.script[Math.min(Math.max(0, turn), this.script.length - 1)]!;
  }
}

/** Replaces `{{initial_context.key}}` (whitespace allowed); unknown keys become ''. */
export function renderTemplate(text: string, initialContext: Record<string, unknown>): string {
  return text.replace(/\{\{\s*initial_context\.([A-Za-z0-9_.-]+)\s*\}\}/g, (_match, key: string) => {
    const value = Object.hasOwn(initialContext, key) ? initialContext[key] : undefined;
    if (value === undefined || value === null) return '';
    return typeof value === 'object' ? JSON.stringify(value) : String(value);
  });
}

/** Steps may be plain strings or objects with a `say` string; anything else is skipped. */
export function workflowSteps(workflowDefinition: Record<string, unknown>): string[] {
  const steps = workflowDefinition.steps;
  if (!Array.isArray(steps)) return [];
  return steps.flatMap((step: unknown): string[] => {
    if (typeof step === 'string') return [step];
    if (step && typeof step === 'object' && typeof (step as { say?: unknown }).say === 'string') return [(step as { say: string }).say];
    return [];
  });
}

export function chooseDisposition(dispositionCodes: Record<string, unknown>): string {
  return Object.keys(dispositionCodes)[0] ?? 'completed';
}

/**
 * Follows the agent definition: greeting, then one step per user turn, then the closing line
 * with hangUp and the call disposition. Position is derived from state.turns, so it is stateless.
 */
export class ScriptedLanguageModel implements LanguageModel {
  async nextTurn(state: ConversationState, userText: string | null): Promise<AgentTurn> {
    const { workflowDefinition, initialContext } = state;
    // Count user turns including the one being answered (the caller may or may not have appended it).
    const recorded = state.turns.filter((turn) => turn.role === 'user').length;
    const last = state.turns.at(-1);
    const userTurns = userText === null ? recorded : last?.role === 'user' && last.text === userText ? recorded : recorded + 1;

    if (userTurns === 0) {
      const greeting = typeof workflowDefinition.greeting === 'string' ? workflowDefinition.greeting : `Hello, this is ${state.agentName}.`;
      return { say: renderTemplate(greeting, initialContext) };
    }
    const steps = workflowSteps(workflowDefinition);
    const step = steps[userTurns - 1];
    if (step !== undefined) return { say: renderTemplate(step, initialContext) };

    const closing = typeof workflowDefinition.closing === 'string' ? workflowDefinition.closing : DEFAULT_CLOSING;
    return {
      say: renderTemplate(closing, initialContext),
      hangUp: true,
      gathered: { call_disposition: chooseDisposition(state.dispositionCodes), turns: userTurns },
    };
  }
}

export class ToneTextToSpeech implements TextToSpeech {
  async synthesize(text: string): Promise<Int16Array> {
    return synthesizeSpeech(text);
  }
}
