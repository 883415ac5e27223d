import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import { KeyDetector } from '../../media/src/audio/dtmf.ts';
import { decodeMulaw, encodeMulaw } from '../../media/src/audio/mulaw.ts';
import { FRAME_SAMPLES, frames, synthesizeSpeech } from '../../media/src/audio/tones.ts';
import { BARGE_IN_AFTER_MS, DEFAULT_CALLER_SCRIPT, type CallerLine } from '../../media/src/streams/caller-script.ts';
import { menuScript, type AnsweringMachine } from './callee-directory.ts';

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
 * The callee's side of an answered call over a provider's media stream: 20 ms mu-law frames of
 * synthetic speech (media/src/audio/tones.ts) in real time, or `pace` times faster, one line of a
 * fixed script after each agent turn (once the platform's mark ends the reply, or over its audio), mark echoes once the agent's audio has "played", `clear`
 * dropping it; the callee hangs up after `callSeconds` (real time) or when `hangUp` aborts (the
 * platform hung up). Resolves to `stream-closed` when the platform closed the stream first, else
 * `ended`. Everything on the line is timed on the line's clock, `pace` times wall time: a frame
 * every 20 ms of it, stamped with it, the agent's audio playing and the pause before a reply.
 */
export async function talkAsCallee(options: {
  url: string;
  wire: MediaStreamWire;
  callSeconds: number;
  /** How many times faster than real time the line runs (SimulatedCarrierOptions.linePace). */
  pace: number;
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
  script?: readonly CallerLine[];
  /** Told after each frame how much audio (ms) has gone out on the stream (LineAudio). */
  audioSent?: (ms: number) => void;
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
    /** Ms on the line's clock since the stream started. */
    const lineMs = () => (Date.now() - startedAt) * options.pace;
    /** When (line ms) the agent audio received so far has finished playing. */
    let agentSpeechEndsAt = 0;
    let agentSpokeSinceReply = false;
    /**
     * The platform marked the end of the agent's reply after its last audio (reply.ts sends a mark
     * as each reply's audio is all sent). Until then a gap in its audio is the agent still talking:
     * a loaded machine (or a model slower than the line) delivers a reply in pieces, and a callee
     * who answered in a gap would speak mid-sentence, its script's lines then falling on the wrong turns.
     */
    let agentReplyMarked = false;
    /** Where (line ms) the agent's audio now playing began, after the last gap in it. */
    let agentAudibleFrom = 0;
    /** When the agent's turn (its audio since the callee's last line) started playing. */
    let agentTurnStartsAt = 0;
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
        agentReplyMarked = true;
        const entry = {
          name: message.mark?.name,
          timer: setTimeout(
            () => send(wire.mark(message.mark?.name)),
            Math.max(0, agentSpeechEndsAt - lineMs()) / options.pace,
          ),
        };
        marks.push(entry);
        return;
      }
      if (message.event === 'clear') {
        // The buffered agent audio is dropped and pending marks are echoed at once.
        agentSpeechEndsAt = lineMs();
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
      if (!agentSpokeSinceReply) agentTurnStartsAt = Math.max(agentSpeechEndsAt, lineMs());
      if (lineMs() > agentSpeechEndsAt) agentAudibleFrom = lineMs(); // after a gap in its audio
      agentSpeechEndsAt = Math.max(agentSpeechEndsAt, lineMs()) + durationMs;
      agentSpokeSinceReply = true;
      agentReplyMarked = false;
    });
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));

    send(wire.connected());
    send(wire.start());
    let sequence = 2;
    let chunk = 0;
    const silence = new Int16Array(FRAME_SAMPLES);
    let keysToPress = options.keys ?? '';
    let pressing: string[] = [];
    const script = () => (options.menu ? menuScript(heardKeys) : (options.script ?? DEFAULT_CALLER_SCRIPT));
    const nextLine = () => {
      const lines = script();
      // A phone menu says its last words once (a person may repeat theirs to an agent who goes on).
      if (options.menu && scriptLine >= lines.length) return '';
      return lines[Math.min(scriptLine, lines.length - 1)]!;
    };
    while (
      socket.readyState === WebSocket.OPEN &&
      !options.hangUp.aborted &&
      Date.now() - startedAt < options.callSeconds * 1000
    ) {
      // Every frame due on the line's clock goes now: a loaded machine wakes this loop late, and the
      // line keeps its time all the same (its audio, stamped with it, and detection: LineAudio).
      const due = Math.floor(lineMs() / FRAME_MS);
      do {
        const frameMs = chunk * FRAME_MS;
        const line = keysToPress ? '' : nextLine();
        const replyAt =
          typeof line === 'object' ? agentTurnStartsAt + BARGE_IN_AFTER_MS : agentSpeechEndsAt + REPLY_PAUSE_MS;
        // A line over the agent is said while its audio plays (a stall in its delivery is not its turn).
        const ready =
          typeof line === 'object' ? frameMs >= agentAudibleFrom && frameMs < agentSpeechEndsAt : agentReplyMarked;
        if (!options.machine && !pending.length && agentSpokeSinceReply && ready && frameMs > replyAt) {
          agentSpokeSinceReply = false;
          if (keysToPress) {
            pressing = [...keysToPress];
            keysToPress = '';
          } else {
            scriptLine += 1;
            pending = frames(synthesizeSpeech(typeof line === 'object' ? line.overAgent : line));
          }
        }
        if (pressing.length && chunk % KEY_INTERVAL_FRAMES === 0) send(wire.dtmf(pressing.shift()!, sequence++));
        const frame = pending.shift() ?? silence;
        chunk += 1;
        send(
          wire.media({
            sequence: sequence++,
            chunk,
            timestampMs: frameMs,
            payload: encodeMulaw(frame).toString('base64'),
          }),
        );
      } while (chunk <= due && socket.readyState === WebSocket.OPEN);
      options.audioSent?.(chunk * FRAME_MS);
      await sleep(FRAME_MS / options.pace);
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

/** A callee presses a key every 100 ms (5 frames). */
const KEY_INTERVAL_FRAMES = 5;
