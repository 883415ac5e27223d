import type { Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import { KeyDetector } from '../media/src/audio/dtmf.ts';
import { decodeMulaw, encodeMulaw } from '../media/src/audio/mulaw.ts';
import { FRAME_SAMPLES, frames, synthesizeSpeech } from '../media/src/audio/tones.ts';
import { DEFAULT_CALLER_SCRIPT, TRANSFER_CALLER_SCRIPT } from '../media/src/streams/caller-script.ts';

const FRAME_MS = 20;
/** The callee answers this long after the agent stops talking. */
const REPLY_PAUSE_MS = 300;

/**
 * The frames a provider sends on its media stream WebSocket (Twilio Media Streams, Telnyx media
 * streaming). What the platform sends back is alike for both: `media` with `{payload}`, `mark`
 * with `{name}`, `clear`.
 */
export interface MediaStreamWire {
  connected(): object;
  start(): object;
  media(frame: { sequence: number; chunk: number; timestampMs: number; payload: string }): object;
  /** A mark the provider echoes once the audio sent before it has played. */
  mark(name: unknown): object;
  /** A key the callee pressed (the provider's `dtmf` event). */
  dtmf(digit: string, sequence: number): object;
  stop(sequence: number): object;
}

/**
 * The callee's side of an answered call over a provider's media stream: real-time 20 ms mu-law
 * frames of synthetic speech (media/src/audio/tones.ts), one line of a fixed script after each
 * agent turn, mark echoes once the agent's audio has "played", `clear` dropping it; the callee
 * hangs up after `callSeconds` or when `hangUp` aborts (the platform hung up). Resolves to
 * `stream-closed` when the platform closed the stream first, else `ended`.
 */
export async function talkAsCallee(options: {
  url: string;
  wire: MediaStreamWire;
  callSeconds: number;
  hangUp: AbortSignal;
  /** Open sockets, so that a stopping simulator can terminate them. */
  sockets: Set<WebSocket>;
  /** An answering machine: its greeting (and beep) is sent first, and it never answers the agent. */
  machine?: AnsweringMachine;
  /** Keys the callee presses as its first answer (simulatedKeys), one every 100 ms. */
  keys?: string;
  /**
   * A phone menu instead of a person (simulatedMenu): it offers its choices, then says which keys
   * it heard in the agent's audio (DTMF tones, media/src/audio/dtmf.ts) and says goodbye.
   */
  menu?: boolean;
  /** What the callee says, one line per agent turn (default DEFAULT_CALLER_SCRIPT). */
  script?: readonly string[];
}): Promise<'stream-closed' | 'ended'> {
  const { wire } = options;
  const socket = new WebSocket(options.url);
  options.sockets.add(socket);
  const send = (message: object) => socket.readyState === WebSocket.OPEN && socket.send(JSON.stringify(message));
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    const startedAt = Date.now();
    let agentSpeechEndsAt = 0;
    let agentSpokeSinceReply = false;
    let scriptLine = 0;
    let pending: Int16Array[] = options.machine ? [...options.machine.frames] : [];
    const keyDetector = new KeyDetector();
    let heardKeys = '';
    const marks: { name: unknown; timer: NodeJS.Timeout }[] = [];
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as {
        event?: string;
        media?: { payload?: string };
        mark?: { name?: string };
      };
      if (message.event === 'mark') {
        const entry = {
          name: message.mark?.name,
          timer: setTimeout(() => send(wire.mark(message.mark?.name)), Math.max(0, agentSpeechEndsAt - Date.now())),
        };
        marks.push(entry);
        return;
      }
      if (message.event === 'clear') {
        // The buffered agent audio is dropped and pending marks are echoed at once.
        agentSpeechEndsAt = Date.now();
        for (const entry of marks.splice(0)) {
          clearTimeout(entry.timer);
          send(wire.mark(entry.name));
        }
        return;
      }
      if (message.event !== 'media' || !message.media?.payload) return;
      const audio = Buffer.from(message.media.payload, 'base64');
      if (options.menu) for (const frame of frames(decodeMulaw(audio))) heardKeys += keyDetector.push(frame) ?? '';
      // Agent audio arrives faster than real time; it "plays" from when the previous audio ends.
      const durationMs = (audio.length / FRAME_SAMPLES) * FRAME_MS;
      agentSpeechEndsAt = Math.max(agentSpeechEndsAt, Date.now()) + durationMs;
      agentSpokeSinceReply = true;
    });
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));

    send(wire.connected());
    send(wire.start());
    let sequence = 2;
    let chunk = 0;
    const silence = new Int16Array(FRAME_SAMPLES);
    let keysToPress = options.keys ?? '';
    let pressing: string[] = [];
    while (
      socket.readyState === WebSocket.OPEN &&
      !options.hangUp.aborted &&
      Date.now() - startedAt < options.callSeconds * 1000
    ) {
      if (
        !options.machine &&
        !pending.length &&
        agentSpokeSinceReply &&
        Date.now() > agentSpeechEndsAt + REPLY_PAUSE_MS
      ) {
        agentSpokeSinceReply = false;
        if (keysToPress) {
          pressing = [...keysToPress];
          keysToPress = '';
        } else {
          const script = options.menu ? menuScript(heardKeys) : (options.script ?? DEFAULT_CALLER_SCRIPT);
          const line = script[Math.min(scriptLine, script.length - 1)]!;
          scriptLine += 1;
          pending = frames(synthesizeSpeech(line));
        }
      }
      if (pressing.length && chunk % KEY_INTERVAL_FRAMES === 0) send(wire.dtmf(pressing.shift()!, sequence++));
      const frame = pending.shift() ?? silence;
      chunk += 1;
      send(
        wire.media({
          sequence: sequence++,
          chunk,
          timestampMs: Date.now() - startedAt,
          payload: encodeMulaw(frame).toString('base64'),
        }),
      );
      await sleep(FRAME_MS);
    }
    for (const entry of marks) clearTimeout(entry.timer);
    const closedByPlatform = socket.readyState !== WebSocket.OPEN;
    send(wire.stop(sequence));
    socket.close();
    await closed;
    return closedByPlatform ? 'stream-closed' : 'ended';
  } finally {
    options.sockets.delete(socket);
  }
}

/**
 * Who picks up an answered call, by the local callee directory (the dialed number, as the last
 * digit decides busy or no answer): a number ending in 9 reaches an answering machine, `…59` one
 * without a beep; `…56` a person whom answering-machine detection cannot classify (`unknown`);
 * anything else a person.
 */
export type SimulatedAnswerer = 'human' | 'unknown' | 'machine_with_beep' | 'machine_without_beep';

export function simulatedAnswerer(number: string): SimulatedAnswerer {
  if (number.endsWith('59')) return 'machine_without_beep';
  if (number.endsWith('9')) return 'machine_with_beep';
  if (number.endsWith('56')) return 'unknown';
  return 'human';
}

/** An answering machine's greeting on the line: its audio frames and when it is over (beep included). */
export interface AnsweringMachine {
  frames: Int16Array[];
  greetingMs: number;
  beep: boolean;
}

/**
 * Timing of the providers' detection, as they report it: a verdict (person, machine) a few seconds
 * after the answer, `unknown` when detection times out (Twilio's default is 30 s; shortened
 * here), the greeting's end once the greeting, its beep or the silence after it are over.
 */
export const DETECTION_MS = { verdict: 2_500, unknown: 5_000, silenceAfterGreeting: 1_500 } as const;

/** What a phone menu says: its choices, then which keys it heard. */
const menuScript = (heard: string) => [
  'For appointments press 2, for prices press 3.',
  heard ? `You chose ${heard}. Goodbye.` : 'No key was pressed. Goodbye.',
];

/** A number ending in 345 reaches a phone menu (the local callee directory). */
export const simulatedMenu = (number: string): boolean => number.endsWith('345');

/** A number ending in 341 reaches a caller who asks for a person (an agent that transfers hands them on). */
export const simulatedScript = (number: string): readonly string[] | undefined =>
  number.endsWith('341') ? TRANSFER_CALLER_SCRIPT : undefined;

/**
 * A transfer's destination, by the same directory as a dialed number (simulatedOutcome): a person
 * who answers, listens to what is said first (a warm transfer's message), talks with the caller for
 * this long and hangs up.
 */
export const TRANSFER_TALK_MS = 2_000;

/** A callee presses a key every 100 ms (5 frames). */
const KEY_INTERVAL_FRAMES = 5;

/**
 * The keys a callee presses as its first answer, by the local callee directory: a number ending in
 * 346 enters `1234#` (an account number, as an agent with a `keypad` setting asks for); others speak.
 */
export const simulatedKeys = (number: string): string | undefined => (number.endsWith('346') ? '1234#' : undefined);

/**
 * How long a callee stays on a call that has gone silent (its media stream closed, the call still
 * up, as Telnyx keeps it) before hanging up: a person says "hello?" a few times, then gives up.
 */
export const DEAD_AIR_PATIENCE_MS = 10_000;

/** The providers' text-to-speech pace (Twilio `<Say>`, Telnyx `speak`): about 15 characters a second. */
export const TTS_MS_PER_CHARACTER = 65;

/** Waits `ms`, or less when `signal` aborts (a call hung up); no timer is left behind either way. */
export const waitUnlessAborted = (ms: number, signal: AbortSignal): Promise<void> =>
  sleep(ms, undefined, { signal }).catch(() => undefined);

const GREETING = "Hi, you've reached Anna. I can't take your call right now, please leave a message";
const BEEP_MS = 500;

/** A machine's greeting: words (for about 4 s, silence padding them), then a 1 kHz beep when it has one. */
export function answeringMachine(beep: boolean): AnsweringMachine {
  const words = frames(synthesizeSpeech(GREETING));
  const padding = Math.max(0, Math.round(4_000 / FRAME_MS) - words.length);
  const greeting = [...words, ...Array.from({ length: padding }, () => new Int16Array(FRAME_SAMPLES))];
  const tone = frames(
    Int16Array.from({ length: (BEEP_MS / 1000) * 8000 }, (_, i) =>
      Math.round(8000 * Math.sin((2 * Math.PI * 1000 * i) / 8000)),
    ),
  );
  const all = beep ? [...greeting, ...tone] : greeting;
  return { frames: all, greetingMs: all.length * FRAME_MS, beep };
}

/** A simulator's calls in progress: what `idle` waits for and `stop` hangs up. */
export class CallsInProgress {
  /** Open media stream sockets (talkAsCallee adds and removes them). */
  readonly sockets = new Set<WebSocket>();
  private readonly running = new Set<Promise<void>>();
  private readonly hangUps = new Set<AbortController>();
  /** Set once stopping: failures of calls cut short are expected then, not logged. */
  stopping = false;

  /** Follows a call until `work` ends; `hangUp` ends it early when the simulator stops. */
  track(hangUp: AbortController, work: Promise<void>): void {
    this.hangUps.add(hangUp);
    this.running.add(work);
    void work.finally(() => {
      this.running.delete(work);
      this.hangUps.delete(hangUp);
    });
  }

  /** Resolves when every call so far has ended and reported it. */
  async idle(): Promise<void> {
    while (this.running.size) await Promise.allSettled([...this.running]);
  }

  /** Hangs up every call, closes their streams, then the simulator's server. */
  async stop(server: Server): Promise<void> {
    this.stopping = true;
    for (const hangUp of this.hangUps) hangUp.abort();
    for (const socket of this.sockets) socket.terminate();
    await Promise.allSettled([...this.running]);
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
}
