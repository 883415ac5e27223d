/**
 * Turn-taking quality per end-of-turn policy, on scripted caller timelines: short answers, a
 * number read with pauses, a slow speaker, backchannels and a real interruption over the agent.
 * Each timeline is a call through the real pipeline and the real Deepgram client against the local
 * Deepgram (nova-3's 300 ms endpointing; Flux's end of turn as local/fakes/deepgram-flux.ts
 * models it), the caller's audio paced in real time (20 ms a frame), so what a policy waits for
 * costs what it would on a call.
 *
 * - false cut-offs: turns ended before the caller had finished (a pause mid-number taken as the
 *   end), and the agent stopped by a backchannel;
 * - missed interruptions: the agent talked on over "Wait, stop.";
 * - added delay: from the end of the caller's speech to their turn decided (audio time);
 * - voice-to-voice: from the end of their speech to the answer's first frame sent (wall time),
 *   with the fakes' fixed delays below (the model's first token 300 ms: what an eager end of
 *   turn can save).
 *
 *   tsx bench/turn-taking.ts [--json]      prints the table (not with --json), then one JSON line
 */
import { buildCallPlan } from '../media/src/agent/call-plan.ts';
import { platformProviders } from '../media/src/agent/providers.ts';
import { CallPipeline } from '../media/src/call/call-pipeline.ts';
import { SimulatedCaller, type MediaStreamMessage } from '../media/src/streams/simulated-caller.ts';
import { startFakeVoiceProviders } from '../local/fakes/voice-providers.ts';

export const TURN_BENCH_DELAYS_MS = { stt: 30, llm: 300, tts: 80 } as const;

/** The agent's greeting, long enough to be spoken over (2.4 s). */
const GREETING = 'Good morning, this is the clinic, calling about your visit tomorrow at nine.';

interface Timeline {
  name: string;
  kind: 'turn' | 'backchannel' | 'interruption';
  /** What the caller says, each part followed by a pause (the last by the silence the policy waits in). */
  parts: { say: string; pauseMs?: number }[];
}

export const TIMELINES: Timeline[] = [
  { name: 'short answer "Yes."', kind: 'turn', parts: [{ say: 'Yes.' }] },
  { name: 'short answer "No, thanks."', kind: 'turn', parts: [{ say: 'No, thanks.' }] },
  {
    name: 'a number read with pauses',
    kind: 'turn',
    parts: [{ say: 'My number is 555,', pauseMs: 700 }, { say: ' 1234,', pauseMs: 700 }, { say: ' 5678.' }],
  },
  {
    name: 'a slow speaker',
    kind: 'turn',
    parts: [{ say: 'I would like to,', pauseMs: 600 }, { say: ' um, book a visit.' }],
  },
  { name: 'backchannel "Mhm." over the agent', kind: 'backchannel', parts: [{ say: 'Mhm.' }] },
  { name: 'backchannel "Yeah, okay." over the agent', kind: 'backchannel', parts: [{ say: 'Yeah, okay.' }] },
  { name: 'interruption "Wait, stop." over the agent', kind: 'interruption', parts: [{ say: 'Wait, stop.' }] },
];

export const POLICIES = {
  'pause 300 ms, every word interrupts (before)': { backchannels: [] },
  'pause 300 ms + backchannels': {},
  'Flux + backchannels': { end_of_turn: 'flux' },
  'Flux, eager + backchannels': { end_of_turn: 'flux', eager_end_of_turn: true },
} as const;

export interface TimelineResult {
  falseCutOffs: number;
  missedInterruptions: number;
  /** End of speech to the turn decided, audio ms; null where no turn was to be taken. */
  addedDelayMs: number | null;
  voiceToVoiceMs: number | null;
}

const FRAME_MS = 20;
const sleepUntil = (at: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, at - performance.now())));

export async function runTimeline(
  timeline: Timeline,
  turnTaking: Record<string, unknown>,
  fakes: Awaited<ReturnType<typeof startFakeVoiceProviders>>,
): Promise<TimelineResult> {
  const platform = platformProviders(fakes.settings, fakes.readKeys);
  const providers = { stt: await platform.stt(), llm: await platform.llm(), tts: await platform.tts() };
  const plan = buildCallPlan({
    agentName: 'Bench',
    // The fake model asks the plan's next step each turn: the call goes on whatever the policy made of the words.
    workflowDefinition: { steps: Array.from({ length: 8 }, (_, step) => `Noted, step ${step + 1}.`) },
    workflowConfigurations: { first_message: GREETING, silence_timeout_seconds: 120, turn_taking: turnTaking },
    templateContextVariables: {},
    initialContext: {},
    dispositionCodes: {},
    passages: [],
    tools: [],
    memories: [],
  });
  let cleared = false;
  let speechEndWall: number | null = null;
  let firstFrameWall: number | null = null;
  /** The caller's last turn was decided this long after the end of their speech (audio ms). */
  let decidedAt: number | null = null;
  const session = new CallPipeline({
    prepare: async () => ({ plan, providers, organizationId: 1 }),
    send: (message) => {
      const { event } = message as { event: string };
      if (event === 'clear') cleared = true;
      // The answer to the caller's last turn: its first frame after that turn was decided.
      if (event === 'media' && decidedAt !== null) firstFrameWall ??= performance.now();
    },
  });
  const caller = new SimulatedCaller({ runRef: '0.0.0' });
  const t0 = performance.now();
  /** The media time of the last frame fed. */
  let fedMs = 0;
  /** Feeds frames in real time (the media timestamps follow the caller's own clock). */
  const feed = async (messages: MediaStreamMessage[], until?: () => boolean) => {
    for (const message of messages) {
      const media = message.media as { timestamp?: string } | undefined;
      if (media?.timestamp !== undefined) {
        fedMs = Number(media.timestamp);
        await sleepUntil(t0 + fedMs);
      }
      await session.handle(message);
      if (until?.()) return;
    }
  };
  await feed(caller.start());
  await session.opened;
  await session.idle(); // the greeting's audio is all sent: playbackEndMs is where it ends
  const overAgent = timeline.kind !== 'turn';
  // Spoken over the agent half a second into its greeting; otherwise once it has played.
  await feed(caller.silence(overAgent ? 500 : session.playbackEndMs + 300));
  const callerTurns = () => session.fragments.filter((fragment) => fragment.role === 'user').length;
  for (const [index, part] of timeline.parts.entries()) {
    await feed(caller.say(part.say));
    const last = index === timeline.parts.length - 1;
    if (!last) await feed(caller.silence(part.pauseMs ?? 0));
    else {
      const speechEnd = caller.elapsedMs;
      speechEndWall = performance.now();
      const turnsBefore = callerTurns();
      // The silence the policy waits in: up to Flux's 5 s timeout and a little more.
      await feed(caller.silence(6000), () => {
        if (callerTurns() === turnsBefore) return false;
        decidedAt ??= fedMs + FRAME_MS - speechEnd; // the turn ended within the last frame fed
        return overAgent || firstFrameWall !== null;
      });
    }
  }
  await session.idle();
  const turnsTaken = callerTurns();
  const decisions = session.latency.turns.length;
  await (await session.finish('closed')).recording?.dispose();
  if (timeline.kind === 'turn')
    return {
      falseCutOffs: Math.max(0, decisions - 1),
      missedInterruptions: 0,
      addedDelayMs: decidedAt,
      voiceToVoiceMs: firstFrameWall !== null && speechEndWall !== null ? firstFrameWall - speechEndWall : null,
    };
  if (timeline.kind === 'backchannel')
    return { falseCutOffs: cleared ? 1 : 0, missedInterruptions: 0, addedDelayMs: null, voiceToVoiceMs: null };
  return {
    falseCutOffs: 0,
    missedInterruptions: cleared && turnsTaken > 0 ? 0 : 1,
    addedDelayMs: null,
    voiceToVoiceMs: null,
  };
}

export type TurnTakingFigures = Record<string, Record<string, TimelineResult>>;

export async function measureTurnTaking(): Promise<TurnTakingFigures> {
  const fakes = await startFakeVoiceProviders({
    deepgram: { finalDelayMs: TURN_BENCH_DELAYS_MS.stt },
    openai: { firstTokenDelayMs: TURN_BENCH_DELAYS_MS.llm },
    elevenlabs: { firstByteDelayMs: TURN_BENCH_DELAYS_MS.tts },
  });
  const figures: TurnTakingFigures = {};
  try {
    for (const [policy, turnTaking] of Object.entries(POLICIES)) {
      figures[policy] = {};
      for (const timeline of TIMELINES) figures[policy][timeline.name] = await runTimeline(timeline, turnTaking, fakes);
    }
  } finally {
    await fakes.stop();
  }
  return figures;
}

export function printTurnTaking(figures: TurnTakingFigures): void {
  const policies = Object.keys(figures);
  const cell = (result: TimelineResult, timeline: Timeline) => {
    if (timeline.kind === 'backchannel') return result.falseCutOffs ? 'agent stopped' : 'agent went on';
    if (timeline.kind === 'interruption') return result.missedInterruptions ? 'missed' : 'stopped';
    const cut = result.falseCutOffs ? `${result.falseCutOffs} cut-off${result.falseCutOffs > 1 ? 's' : ''}, ` : '';
    const delay = result.addedDelayMs === null ? 'no turn' : `+${result.addedDelayMs} ms`;
    const v2v = result.voiceToVoiceMs === null ? '' : ` (v2v ${Math.round(result.voiceToVoiceMs)} ms)`;
    return `${cut}${delay}${v2v}`;
  };
  console.log(`| timeline | ${policies.join(' | ')} |`);
  console.log(`|---|${policies.map(() => '---').join('|')}|`);
  for (const timeline of TIMELINES)
    console.log(
      `| ${timeline.name} | ${policies.map((policy) => cell(figures[policy]![timeline.name]!, timeline)).join(' | ')} |`,
    );
  const totals = policies.map((policy) => {
    const results = Object.values(figures[policy]!);
    const delays = results.flatMap((result) => (result.addedDelayMs === null ? [] : [result.addedDelayMs]));
    return {
      falseCutOffs: results.reduce((sum, result) => sum + result.falseCutOffs, 0),
      missed: results.reduce((sum, result) => sum + result.missedInterruptions, 0),
      meanDelay: Math.round(delays.reduce((sum, delay) => sum + delay, 0) / Math.max(1, delays.length)),
    };
  });
  console.log(`| **false cut-offs** | ${totals.map((total) => total.falseCutOffs).join(' | ')} |`);
  console.log(`| **missed interruptions** | ${totals.map((total) => total.missed).join(' | ')} |`);
  console.log(`| **mean added delay** | ${totals.map((total) => `${total.meanDelay} ms`).join(' | ')} |`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const figures = await measureTurnTaking();
  if (!process.argv.includes('--json')) printTurnTaking(figures);
  console.log(JSON.stringify(figures));
}
