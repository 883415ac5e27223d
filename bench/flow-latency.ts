/**
 * What a conversation flow adds to each turn of the voice pipeline (bench/voice-latency.ts), in one
 * run so the machine's load is the same for all: a flat prompt; a flow whose step the calls stay in
 * (the flow brain's prompt and tools each turn); a flow that moves on every turn by a transition
 * without condition (checked before the model is asked: no extra round trip); and one whose model
 * calls a transition function every turn (the local model calls `go_to_…` on the caller's cue, then
 * answers the function's result: one more model round, the fake's first-token delay included).
 *
 *   tsx bench/flow-latency.ts [turns]      prints one JSON line
 */
import { FAKE_DELAYS_MS, FLAT_DEFINITION, measureVoiceLatency } from './voice-latency.ts';

const step = (id: string, say: string) => ({ id, type: 'agentNode', name: id, prompt: `Say "${say}"` });
const flow = (edges: object[]) => ({
  nodes: [
    { id: 'start', type: 'startCall', name: 'Greeting', greeting: 'Hello.', prompt: 'Greet the caller.' },
    step('a', 'Step A answers.'),
    step('b', 'Step B answers.'),
    { id: 'end', type: 'endCall', name: 'End', closing: 'Goodbye.' },
  ],
  edges: [
    { source: 'start', target: 'a' },
    ...edges,
    { source: 'a', target: 'end', condition: 'The caller says "goodbye"' },
    { source: 'b', target: 'end', condition: 'The caller says "goodbye"' },
  ],
});

/** The bench's caller says "Question number <n>." each turn: "number" is the cue of the model's transitions. */
export const DEFINITIONS = {
  flat: FLAT_DEFINITION,
  flowStays: flow([{ source: 'a', target: 'b', condition: 'The caller says "never"' }]),
  flowMovesByRule: flow([
    { source: 'a', target: 'b' },
    { source: 'b', target: 'a' },
  ]),
  flowMovesByModel: flow([
    { source: 'a', target: 'b', condition: 'The caller says "number"' },
    { source: 'b', target: 'a', condition: 'The caller says "number"' },
  ]),
};

if (import.meta.url === `file://${process.argv[1]}`) {
  const turns = Number(process.argv[2] ?? 200);
  const figures: Record<string, unknown> = {};
  for (const [name, definition] of Object.entries(DEFINITIONS))
    figures[name] = await measureVoiceLatency(turns, definition);
  console.log(JSON.stringify({ turns, fakeDelaysMs: FAKE_DELAYS_MS, ...figures }));
}
