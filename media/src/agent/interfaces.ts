/**
 * Seams between the call loop and the speech/LLM providers. Local runs use the deterministic
 * implementations in scripted.ts; production plugs in real services behind the same shapes.
 */

export interface ConversationTurn {
  role: 'user' | 'assistant';
  text: string;
}

export interface ConversationState {
  agentName: string;
  workflowDefinition: Record<string, unknown>;
  initialContext: Record<string, unknown>;
  dispositionCodes: Record<string, unknown>;
  turns: ConversationTurn[];
}

export interface AgentTurn {
  say: string;
  /** Data collected this turn (merged into the call's gathered data). */
  gathered?: Record<string, unknown>;
  /** End the call after this turn has been spoken. */
  hangUp?: boolean;
}

export interface SpeechToText {
  /** utterance: 8 kHz mono PCM; turn: 0-based index of the caller's utterance in this call. */
  transcribe(utterance: Int16Array, turn: number): Promise<string>;
}

export interface LanguageModel {
  /** userText is null for the opening turn (the greeting). */
  nextTurn(state: ConversationState, userText: string | null): Promise<AgentTurn>;
}

export interface TextToSpeech {
  /** Returns 8 kHz mono 16-bit PCM. */
  synthesize(text: string): Promise<Int16Array>;
}
