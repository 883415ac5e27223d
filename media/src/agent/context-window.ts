/**
 * The conversation the model is given each turn, bounded: a 30-minute call or a long chat would
 * otherwise send a prompt that grows with every turn (cost and latency per turn growing without
 * limit, then the model's context refusing it). The system prompt (the agent's instructions and
 * knowledge) goes with every turn and is not part of this budget; of the conversation, the first
 * message (the greeting, or what a call taken back starts from), the most recent turns and the
 * instructions added during the call (control API `add_message`) are kept, and the older turns in
 * between are left out, replaced by a note saying so. Pure.
 */
import type { ChatMessage } from './interfaces.ts';

export interface ContextBudget {
  /** Characters of conversation sent (about 4 characters a token). */
  maxChars: number;
  /** One message longer than this is cut (a long tool result, a long stretch of speech). */
  maxMessageChars: number;
}

/** About 12,000 tokens of conversation: dozens of turns, a small share of any model's context. */
export const CONTEXT_BUDGET: ContextBudget = { maxChars: 48_000, maxMessageChars: 8_000 };

/** The note standing for the turns left out. */
export const omittedNote = (count: number): ChatMessage => ({
  role: 'system',
  content: `(${count} earlier message${count === 1 ? '' : 's'} of this conversation left out here; the conversation continues below.)`,
});

const textOf = (content: unknown): string => {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content.map((part: { text?: unknown }) => (typeof part.text === 'string' ? part.text : '')).join('');
  return '';
};

/** A message's size in characters: its text and any tool calls it makes. */
export function messageChars(message: ChatMessage): number {
  let chars = textOf(message.content).length;
  if (message.role === 'assistant')
    for (const call of message.tool_calls ?? [])
      if (call.type === 'function') chars += call.function.name.length + call.function.arguments.length;
  return chars;
}

const cut = (message: ChatMessage, maxChars: number): ChatMessage => {
  if (typeof message.content !== 'string' || message.content.length <= maxChars) return message;
  return { ...message, content: `${message.content.slice(0, maxChars)}… (cut)` } as ChatMessage;
};

/**
 * The turns of `history`: a turn starts at any message but a tool result, which stays with the
 * assistant message that asked for it (the model refuses a tool result without its call).
 */
function turns(history: readonly ChatMessage[]): number[][] {
  const result: number[][] = [];
  history.forEach((message, index) => {
    if (message.role === 'tool' && result.length > 0) result.at(-1)!.push(index);
    else result.push([index]);
  });
  return result;
}

/** `history` within `budget` (see the module's comment); unchanged when it fits. */
export function boundedContext(history: readonly ChatMessage[], budget: ContextBudget = CONTEXT_BUDGET): ChatMessage[] {
  const messages = history.map((message) => cut(message, budget.maxMessageChars));
  const size = (indexes: number[]) => indexes.reduce((sum, index) => sum + messageChars(messages[index]!), 0);
  if (size(messages.map((_, index) => index)) <= budget.maxChars) return messages;

  const all = turns(messages);
  const [first, ...rest] = all;
  const kept = new Set<number>(first);
  let used = size(first!);
  // The most recent turns, newest first, while they fit; the last one always.
  let oldestKept = all.length;
  for (let t = rest.length - 1; t >= 0; t--) {
    const turn = rest[t]!;
    const chars = size(turn);
    if (used + chars > budget.maxChars && t < rest.length - 1) break;
    used += chars;
    turn.forEach((index) => kept.add(index));
    oldestKept = t;
  }
  // Instructions added during the call, among the turns left out, while they fit (newest first).
  for (let t = oldestKept - 1; t >= 0; t--) {
    const turn = rest[t]!;
    if (turn.length !== 1 || messages[turn[0]!]!.role !== 'system') continue;
    const chars = size(turn);
    if (used + chars > budget.maxChars) continue;
    used += chars;
    kept.add(turn[0]!);
  }
  const omitted = messages.length - kept.size;
  const result: ChatMessage[] = [];
  messages.forEach((message, index) => {
    if (!kept.has(index)) return;
    result.push(message);
    if (index === first!.at(-1) && omitted > 0) result.push(omittedNote(omitted));
  });
  return result;
}
