import type { Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type WebSocket from 'ws';
import { speechText } from '../../media/src/audio/tones.ts';
import { parseWavHeader, WAV_HEADER_BYTES } from '../../media/src/audio/wav.ts';
import {
  answeringMachine,
  DETECTION_MS,
  simulatedAnswerer,
  simulatedKeys,
  simulatedMenu,
  simulatedOutcome,
  simulatedScript,
  TRANSFER_TALK_MS,
  TTS_MS_PER_CHARACTER,
  type AnsweringMachine,
  type SimulatedAnswerer,
} from './callee-directory.ts';
import { talkAsCallee, type MediaStreamWire } from './callee-stream.ts';
import { connectHandset, Handsets, HANDSETS_PATH } from './handsets.ts';
import { LineAudio } from './line-audio.ts';
import { CarrierMessaging } from './messaging.ts';
import { NumberInventory } from './number-inventory.ts';

/**
 * The simulated carrier: what a phone network does with calls, whatever API the platform speaks to
 * it. Calls ring, are answered or not by the callee directory (callee-directory.ts), talk over a
 * media stream to the platform's media service (callee-stream.ts), are checked for answering
 * machines, hear text-to-speech, and are transferred to people; numbers are sold and owned
 * (number-inventory.ts). The wire layers (twilio-wire.ts, telnyx-wire.ts) turn it into a
 * provider's REST API, signed callbacks and stream framing. Text messages go through its messaging
 * (messaging.ts), by the same directory.
 */

/** Waits `ms`, or less when `signal` aborts (a call hung up); no timer is left behind either way. */
export const waitUnlessAborted = (ms: number, signal: AbortSignal): Promise<void> =>
  sleep(ms, undefined, { signal }).catch(() => undefined);

/** A carrier's calls in progress: what `idle` waits for and `stop` hangs up. */
export class CallsInProgress {
  /** Open media stream sockets (talkAsCallee adds and removes them). */
  readonly sockets = new Set<WebSocket>();
  private readonly running = new Set<Promise<void>>();
  private readonly hangUps = new Set<AbortController>();
  /** Set once stopping: failures of calls cut short are expected then, not logged. */
  stopping = false;

  /** Follows a call until `work` ends; `hangUp` ends it early when the carrier stops. */
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

  /** Hangs up every call, closes their streams, then the carrier's server. */
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

/** What the carrier knows of a call, whichever wire placed it. */
export interface CarrierCall {
  readonly id: string;
  readonly from: string;
  readonly to: string;
  /** Aborted when the call must end now (the platform hung up, or the carrier stops). */
  hangUp: AbortController;
}

/** Who took an answered call, by the callee directory, and when detection can tell (ms after the answer). */
export interface Answerer {
  kind: SimulatedAnswerer;
  /** The answering machine on the line: its greeting is what the callee streams first. */
  machine: AnsweringMachine | undefined;
  /** When detection gives its verdict (person, machine), or gives up (`unknown`). */
  verdictMs: number;
  /** When a machine's greeting is over: its beep, or the silence after it. */
  greetingEndMs: number | null;
}

function answererOf(number: string): Answerer {
  const kind = simulatedAnswerer(number);
  const machine = kind.startsWith('machine_') ? answeringMachine(kind === 'machine_with_beep') : undefined;
  return {
    kind,
    machine,
    verdictMs: kind === 'unknown' ? DETECTION_MS.unknown : DETECTION_MS.verdict,
    greetingEndMs: machine ? machine.greetingMs + (machine.beep ? 0 : DETECTION_MS.silenceAfterGreeting) : null,
  };
}

/** How a wire reports an outbound call's life to the platform (its status callbacks or events). */
export interface OutboundLine<Call extends CarrierCall, End> {
  ringing(call: Call): Promise<void>;
  /** Over before an answer: cancelled by the platform while ringing, busy, or nobody answered. */
  unanswered(call: Call, why: 'canceled' | 'busy' | 'no-answer'): Promise<void>;
  answered(call: Call): Promise<void>;
  /**
   * Answering-machine detection, as the wire reports it (if asked for). `at(ms)` waits until that
   * much of the callee's audio has gone out on the call's stream (the line's time since the
   * answer, as detection hears it); false when the call is over by then (nothing is reported).
   */
  detect(call: Call, answerer: Answerer, at: (ms: number) => Promise<boolean>): Promise<void>;
  /** The answered call until the callee or the platform ends it (its media stream and what follows). */
  talk(call: Call, machine: AnsweringMachine | undefined): Promise<End>;
  /** Reports how the answered call ended, once detection has stopped. */
  ended(call: Call, end: End): Promise<void>;
}

/** A transfer as the carrier records it (for `GET /_simulator/transfers`). */
export interface TransferRecord {
  callId: string;
  to: string;
  callerId: string | null;
  status: string;
  whisper_heard: string | null;
  digits_sent: string | null;
  bridged_ms: number;
}

/** How a wire carries a transfer's steps (whisper callbacks and the dial's action, or the new leg's events). */
export interface TransferLine {
  /** The destination starts ringing. */
  ringing(): Promise<void>;
  /**
   * The destination answered: what happens before the bridge (a whisper, detection); whether the
   * caller is bridged to it.
   */
  answered(outcome: 'answered' | 'voicemail', record: TransferRecord): Promise<boolean>;
  /** The caller and the destination are connected. */
  bridged(record: TransferRecord): Promise<void>;
  /** The transfer is over: how, and how many seconds the bridge lasted. */
  over(
    outcome: 'busy' | 'no-answer' | 'bridged' | 'not-bridged',
    seconds: number,
    record: TransferRecord,
  ): Promise<void>;
}

export interface SimulatedCarrierOptions {
  /** How long an answered call lasts before the callee hangs up (real time, at any linePace). */
  callSeconds: number;
  /** Ringing before an outcome. */
  ringMs?: number;
  /**
   * How many times faster than real time the audio on the line runs (default 1, real time, as
   * `npm start` has it; the tests' configuration raises it): the callee's speech and the playing
   * of the agent's audio, the carrier's text-to-speech and played audio, and answering-machine
   * detection, timed against the machine's greeting. The media service keeps its own clock by the
   * stream's timestamps, so it follows. The people's own waits stay real time: ringing, a
   * transfer's talk, patience on dead air, `callSeconds`.
   */
  linePace?: number;
  /**
   * The handsets the carrier reaches (handsets.ts): given when several wires share one phone
   * network (the local stack's Twilio and Telnyx), so a phone picked up at either is reached by a
   * call through either; the carrier hangs up only the handsets it made itself when it stops.
   */
  handsets?: Handsets;
}

export class SimulatedCarrier {
  readonly callSeconds: number;
  readonly ringMs: number;
  readonly linePace: number;
  readonly inProgress = new CallsInProgress();
  readonly numbers = new NumberInventory();
  /** Phones the tests hold at numbers of the directory (an agent test's simulated caller): handsets.ts. */
  readonly handsets: Handsets;
  private readonly ownsHandsets: boolean;
  readonly messaging = new CarrierMessaging((stop, work) => this.track(stop, work), waitUnlessAborted);
  /** What the carrier's text-to-speech said on calls (a voicemail message), for `GET /_simulator/spoken`. */
  readonly spoken: { callId: string; to: string; text: string; completed: boolean }[] = [];
  /** Calls handed on to a person, for `GET /_simulator/transfers`. */
  readonly transfers: TransferRecord[] = [];
  /** The callee's audio sent so far on each outbound call being checked for a machine. */
  private readonly lineAudio = new WeakMap<CarrierCall, LineAudio>();

  constructor(options: SimulatedCarrierOptions) {
    this.callSeconds = options.callSeconds;
    this.ringMs = options.ringMs ?? 300;
    this.linePace = options.linePace ?? 1;
    this.ownsHandsets = !options.handsets;
    this.handsets = options.handsets ?? new Handsets();
    if (!(this.linePace > 0)) throw new Error(`linePace must be a positive number, not ${options.linePace}`);
  }

  /** Follows a call's work until it ends (idle waits for it; stop hangs the call up). */
  track(hangUp: AbortController, work: Promise<void>): void {
    this.inProgress.track(hangUp, work);
  }

  /** Logs a failure of a call's work, unless the carrier is stopping (calls cut short then). */
  logFailure(name: string, what: string, error: unknown): void {
    if (!this.inProgress.stopping) console.error(`${name}: ${what}`, error);
  }

  /** Sends a webhook to the platform: its answer, or undefined (logged) when it could not be reached. */
  async deliver(name: string, send: () => Promise<Response>): Promise<Response | undefined> {
    try {
      return await send();
    } catch (error) {
      this.logFailure(name, 'webhook failed', error);
      return undefined;
    }
  }

  /**
   * An outbound call: it rings, then the callee directory decides (busy, no answer, a person or a
   * machine); answered, detection runs alongside the conversation, and the end is reported once
   * detection has stopped.
   */
  async placeOutbound<Call extends CarrierCall, End>(call: Call, line: OutboundLine<Call, End>): Promise<void> {
    await line.ringing(call);
    await sleep(this.ringMs);
    if (call.hangUp.signal.aborted) return line.unanswered(call, 'canceled');
    const outcome = simulatedOutcome(call.to);
    if (outcome === 'busy' || outcome === 'no-answer') return line.unanswered(call, outcome);
    await line.answered(call);
    // The stream starts at once for a person and a machine alike; detection runs alongside, on
    // the callee's audio as it goes out (line-audio.ts).
    const answerer = answererOf(call.to);
    const callOver = new AbortController();
    const audio = new LineAudio();
    this.lineAudio.set(call, audio);
    const at = async (ms: number) => {
      await audio.reached(ms, callOver.signal);
      return !callOver.signal.aborted && !call.hangUp.signal.aborted;
    };
    const detection = line.detect(call, answerer, at);
    const end = await line.talk(call, answerer.machine);
    callOver.abort();
    this.lineAudio.delete(call);
    await detection;
    await line.ended(call, end);
  }

  /**
   * The callee's side of an answered call over the wire's media stream (`frames`), until the
   * callee hangs up (`callSeconds`), `hangUp` aborts, or the platform closes the stream. A handset
   * picked up at the dialed number (handsets.ts) is that callee; else the directory's.
   */
  converse(
    call: CarrierCall,
    stream: { url: string; hangUp: AbortSignal; frames: MediaStreamWire },
    machine?: AnsweringMachine,
  ): Promise<'stream-closed' | 'ended'> {
    const handset = this.handsets.take(call.to);
    if (handset)
      return connectHandset({
        url: stream.url,
        wire: stream.frames,
        handset,
        hangUp: stream.hangUp,
        sockets: this.inProgress.sockets,
        audioSent: (ms) => this.lineAudio.get(call)?.sent(ms),
      });
    return talkAsCallee({
      url: stream.url,
      callSeconds: this.callSeconds,
      pace: this.linePace,
      hangUp: stream.hangUp,
      sockets: this.inProgress.sockets,
      machine,
      keys: simulatedKeys(call.to),
      menu: simulatedMenu(call.to),
      script: simulatedScript(call.to),
      wire: stream.frames,
      audioSent: (ms) => this.lineAudio.get(call)?.sent(ms),
    });
  }

  /** The carrier's text-to-speech on a live call, at its pace, recorded; false when the call ended first. */
  async say(call: CarrierCall, text: string): Promise<boolean> {
    const completed = await this.speak(call, text);
    this.spoken.push({ callId: call.id, to: call.to, text, completed });
    return completed;
  }

  /** Plays `text` as speech on the call (about 15 characters a second, at linePace); false when the call ended first. */
  async speak(call: CarrierCall, text: string): Promise<boolean> {
    await waitUnlessAborted((text.length * TTS_MS_PER_CHARACTER) / this.linePace, call.hangUp.signal);
    return !call.hangUp.signal.aborted;
  }

  /**
   * Plays the WAV at `url` (a loopback address) to the far end of the call, for as long as it
   * lasts (at linePace): the words the person hears (a warm transfer's message), or null when it
   * cannot be fetched.
   */
  async play(call: CarrierCall, url: string): Promise<string | null> {
    const audio = await fetch(url).then(
      (answer) => (answer.ok ? answer.arrayBuffer() : null),
      () => null,
    );
    if (!audio) return null;
    const wav = Buffer.from(audio);
    const header = parseWavHeader(wav);
    const data = wav.subarray(WAV_HEADER_BYTES, WAV_HEADER_BYTES + header.dataBytes);
    const samples = new Int16Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.length));
    const words = speechText(samples);
    await waitUnlessAborted(((samples.length / 8000) * 1000) / this.linePace, call.hangUp.signal);
    return words;
  }

  /**
   * A live call handed on to a person: the destination (by the callee directory) rings for up to
   * `timeoutSeconds`; answered, the wire's whisper and detection come first, then the caller and
   * the person talk for TRANSFER_TALK_MS.
   */
  async transfer(
    call: CarrierCall,
    request: { to: string; callerId: string | null; timeoutSeconds: number; digits: string | null },
    line: TransferLine,
  ): Promise<void> {
    const record: TransferRecord = {
      callId: call.id,
      to: request.to,
      callerId: request.callerId,
      status: 'ringing',
      whisper_heard: null,
      digits_sent: request.digits,
      bridged_ms: 0,
    };
    this.transfers.push(record);
    await line.ringing();
    // A SIP address's user part is looked up like a number.
    const outcome = simulatedOutcome(request.to.replace(/@.*$/, ''));
    if (outcome === 'busy' || outcome === 'no-answer') {
      await waitUnlessAborted(outcome === 'busy' ? this.ringMs : request.timeoutSeconds * 1000, call.hangUp.signal);
      record.status = outcome;
      return line.over(outcome, 0, record);
    }
    await waitUnlessAborted(this.ringMs, call.hangUp.signal);
    const bridge = await line.answered(outcome, record);
    if (!bridge || call.hangUp.signal.aborted) return line.over('not-bridged', 0, record);
    await line.bridged(record);
    const bridgedAt = Date.now();
    await waitUnlessAborted(TRANSFER_TALK_MS, call.hangUp.signal);
    record.bridged_ms = Date.now() - bridgedAt;
    return line.over('bridged', Math.max(1, Math.round(record.bridged_ms / 1000)), record);
  }

  /** Takes the handsets' WebSocket upgrades on a wire's server (HANDSETS_PATH<number>), refusing any other; their URL. */
  serveHandsets(server: Server, origin: string): string {
    server.on('upgrade', (request, socket, head) => {
      if (!this.handsets.upgrade(request, socket, head)) socket.destroy();
    });
    return `${origin.replace(/^http/, 'ws')}${HANDSETS_PATH}`;
  }

  /** Resolves when every call placed so far has ended and reported it. */
  idle(): Promise<void> {
    return this.inProgress.idle();
  }

  /** Hangs up every call, then closes the wire's server. */
  stop(server: Server): Promise<void> {
    if (this.ownsHandsets) this.handsets.stop();
    return this.inProgress.stop(server);
  }
}
