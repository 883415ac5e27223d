import { setTimeout as sleep } from 'node:timers/promises';
import { WebSocket } from 'ws';
import type { SpeechToText, SpeechToTextStream, TextToSpeech } from '../../media/src/agent/interfaces.ts';
import type { CallerTurn } from '../domain/agent-test-runs.ts';
import { BARGE_IN_AFTER_MS, callerAction, REPLY_PAUSE_MS } from '../domain/caller-actions.ts';
import { heardTranscript, type LineEvent } from '../domain/voice-test-line.ts';
import {
  ConversationTimeoutError,
  parseArguments,
  parseFrame,
  SessionRefusedError,
  type ChatSession,
  type ChatTalk,
} from './test-conversation.ts';

/** The caller's side of the line: its voice, its ears, and how fast the line runs. */
export interface CallerLine {
  tts: TextToSpeech;
  stt: SpeechToText;
  language: string;
  /** Times real time (1 on AWS; the local stack's tests run their lines faster, as the simulated carrier's). */
  pace: number;
}

/**
 * The caller's end of the line: a voice session's WebSocket (its `start` frame with the session's
 * credential), or, over the local carrier, the handset of the number its call dials (the call
 * placed once the handset is picked up).
 */
export interface VoiceConnection {
  url: string;
  /** Once the socket is open: what starts the conversation. */
  begin: (send: (message: object) => void) => Promise<void>;
  /** Once the line carries the agent (its first frame). */
  connected?: () => void;
}

/** A voice session's end of the line: the `start` frame with its credential, as a browser's client sends it. */
export const sessionConnection = (session: ChatSession): VoiceConnection => ({
  url: session.url,
  begin: async (send) =>
    send({ event: 'start', start: { customParameters: { run_ref: session.run_ref, stream_token: session.token } } }),
});

const FRAME_MS = 20;
/** 20 ms of 8 kHz mu-law. */
const FRAME_BYTES = 160;
/** Mu-law's zero: silence on the line. */
const SILENT_FRAME = Buffer.alloc(FRAME_BYTES, 0xff);
/** A key every 100 ms, as a phone's keypad sends them. */
const KEY_EVERY_FRAMES = 5;
/** After an answer has played, how long the caller waits to have heard its words (a final result) before it answers. */
const HEARING_WAIT_MS = 1500;
/**
 * How long a caller with nothing left to say waits after the agent's answer for the agent to hang
 * up (its end of the call: the tool, the audio drained, the line closed) before the turn limit ends
 * it, whether the caller said goodbye or had its last turn. Generous: it only lengthens a case whose
 * agent does not hang up, and a loaded stack took more than 1.5 s (a clean-clone CI run's "the turn
 * limit ended the conversation"; a second one's came after the caller's last turn, which waited
 * only the 300 ms reply pause).
 */
const GOODBYE_GRACE_MS = 6000;
/** The mark a session sends once the agent hangs up (media/src/streams/websocket-server.ts HANGUP_MARK). */
const AGENT_HANGUP_MARK = 'hangup';

/** Cuts mu-law audio into 20 ms frames (the last padded with silence). */
function framesOf(audio: Buffer): Buffer[] {
  const frames: Buffer[] = [];
  for (let at = 0; at < audio.length; at += FRAME_BYTES) {
    const frame = Buffer.from(SILENT_FRAME);
    audio.copy(frame, 0, at, Math.min(at + FRAME_BYTES, audio.length));
    frames.push(frame);
  }
  return frames;
}

/**
 * Talks with the agent over a voice line (a voice session, mode `webrtc`, or a phone call's
 * handset at the local carrier: Media Streams frames either way), the caller's side of it: its turns said by
 * `line.tts` and sent as 20 ms frames stamped on the line's clock (silence between), keys as `dtmf`
 * frames, `[silence]` as nothing; the agent's audio played on the same clock (marks echoed once
 * what came before them has played, `clear` dropping what has not) and heard by `line.stt`, which
 * makes the agent's lines of the transcript: what the caller heard, an interrupted answer as far as
 * it played. The caller answers once the agent's answer has played and been heard (a pause after
 * it), or, `interrupts`, talks over each answer after the greeting BARGE_IN_AFTER_MS into it. Each
 * turn's latency is from the end of its words (or keys) to the agent's first audio. Ends as
 * talkOverChat does: the agent hangs up, the caller's goodbye is answered, or `maxTurns`; past
 * `timeoutSeconds`, ConversationTimeoutError.
 */
export async function talkOverVoice(
  connection: VoiceConnection,
  options: {
    maxTurns: number;
    timeoutSeconds: number;
    interrupts: boolean;
    caller: (transcript: ChatTalk['transcript'], turn: number) => Promise<CallerTurn>;
    line: CallerLine;
  },
): Promise<ChatTalk> {
  const { line } = options;
  const talk: ChatTalk = { transcript: [], toolCalls: [], endedBy: 'agent', callerTurns: 0, latencies: [] };
  const events: LineEvent[] = [];
  let failure: Error | undefined;
  const ears: SpeechToTextStream = await line.stt.open(
    { language: line.language },
    {
      speechStarted: () => undefined,
      utteranceEnd: () => undefined,
      transcript: (result) => {
        if (!result.isFinal || !result.text.trim()) return;
        events.push({ role: 'assistant', atMs: Math.round(result.start * 1000), text: result.text.trim() });
        heardSinceAnswer = true;
      },
      failed: (error) => (failure = error),
    },
  );
  const ws = new WebSocket(connection.url);
  let connected = false;
  let closed = false;
  let closeInfo = { code: 0, reason: '' };
  ws.on('close', (code, reason) => {
    closed = true;
    closeInfo = { code, reason: String(reason) };
  });
  ws.on('error', () => undefined); // the close that follows ends the talk

  /** The agent's audio waiting to play, and the marks among it (echoed once the audio before them played). */
  let agentAudio: { frame: Buffer; answer: boolean; turn: number }[] = [];
  let receivedFrames = 0;
  let playedFrames = 0;
  let marks: { name: unknown; at: number; answers: boolean; turn: number }[] = [];
  /** Line ms: when the agent's audio of this turn started playing, when its answer finished. */
  let answerStartedAt: number | null = null;
  let answerDoneAt: number | null = null;
  let heardSinceAnswer = false;
  let agentHangingUp = false;
  /** Wall ms when the caller's turn ended (its last frame or key out); audio after it answers the turn. */
  let turnEndedAt: number | null = null;
  let answerAudio = false;
  /** Caller turns begun (counted when the turn is due, before its words are asked for): what the agent's audio and marks belong to. */
  let turnsBegun = 0;

  ws.on('message', (data) => {
    const frame = parseFrame(data);
    if (!frame) return;
    if (!connected) connection.connected?.();
    connected = true;
    if (frame.event === 'media') {
      const payload = (frame.media as { payload?: unknown } | undefined)?.payload;
      if (typeof payload !== 'string') return;
      if (turnEndedAt !== null && !answerAudio) {
        answerAudio = true;
        talk.latencies[talk.latencies.length - 1] = Date.now() - turnEndedAt;
      }
      const frames = framesOf(Buffer.from(payload, 'base64'));
      // Audio before the caller's turn ended is the earlier answer's (still playing when the caller talked over it).
      const answer = answerAudio || turnsBegun === 0;
      agentAudio.push(...frames.map((frame) => ({ frame, answer, turn: turnsBegun })));
      receivedFrames += frames.length;
    } else if (frame.event === 'mark') {
      const name = (frame.mark as { name?: unknown } | undefined)?.name;
      // Only an answer to the caller's latest turn ends it (an interrupted answer's mark comes after the turn began).
      marks.push({ name, at: receivedFrames, answers: answerAudio || turnsBegun === 0, turn: turnsBegun });
    } else if (frame.event === 'clear') {
      // The caller interrupted: what has not played is dropped, its marks echoed at once.
      playedFrames += agentAudio.length;
      agentAudio = [];
    } else if (frame.event === 'tool_call') {
      talk.toolCalls.push({
        name: String(frame.name),
        arguments: parseArguments(frame.arguments),
        result: typeof frame.result === 'string' ? frame.result : null,
      });
    }
  });

  let callerFrames: Buffer[] = [];
  let keys: string[] = [];
  let turn: Promise<void> | null = null;
  let hangingUp = false;
  let ending: ChatTalk['endedBy'] | null = null;
  const send = (message: object) => ws.readyState === WebSocket.OPEN && ws.send(JSON.stringify(message));
  const transcriptSoFar = () => heardTranscript(events);

  /** The caller's next turn: asked of the script or the model, then said, pressed or kept silent. */
  const takeTurn = async (atMs: number): Promise<void> => {
    // What the agent says from now on answers this turn.
    turnsBegun += 1;
    answerStartedAt = null;
    answerDoneAt = null;
    heardSinceAnswer = false;
    answerAudio = false;
    turnEndedAt = null;
    const next = await options.caller(transcriptSoFar(), talk.callerTurns + 1);
    const words = next.say.trim();
    if (!words) {
      ending = 'caller';
      return;
    }
    hangingUp = next.hang_up;
    talk.callerTurns += 1;
    talk.latencies.push(null);
    events.push({ role: 'user', atMs, text: words });
    const action = callerAction(words);
    if (action.kind === 'say') {
      const audio: Buffer[] = [];
      for await (const chunk of line.tts.stream(action.text, { language: line.language }, AbortSignal.timeout(15_000)))
        audio.push(Buffer.from(chunk));
      callerFrames = framesOf(Buffer.concat(audio));
    } else if (action.kind === 'keys') keys = [...action.keys];
    // A silence: the turn is over at once, and the agent's next words (its silence prompt) answer it.
    else turnEndedAt = Date.now();
  };

  /** One 20 ms frame of the line at `lineMs`: the agent's audio plays and is heard, the caller's goes out. */
  const tick = (chunk: number, lineMs: number): void => {
    const played = agentAudio.shift();
    if (played) {
      playedFrames += 1;
      if (played.answer && played.turn === turnsBegun) answerStartedAt ??= lineMs;
    }
    ears.send(played?.frame ?? SILENT_FRAME);
    const due = marks.filter((mark) => mark.at <= playedFrames);
    marks = marks.filter((mark) => mark.at > playedFrames);
    for (const mark of due) {
      send({ event: 'mark', mark: { name: mark.name } });
      if (mark.name === AGENT_HANGUP_MARK) agentHangingUp = true;
      // An answer cut by the caller's next turn has its mark echoed during that turn: it answers nothing.
      else if (mark.answers && mark.turn === turnsBegun) answerDoneAt ??= lineMs;
    }
    if (keys.length && chunk % KEY_EVERY_FRAMES === 0) {
      send({ event: 'dtmf', dtmf: { track: 'inbound_track', digit: keys.shift() } });
      if (!keys.length) turnEndedAt = Date.now();
    }
    const speech = callerFrames.shift();
    if (speech && !callerFrames.length) turnEndedAt = Date.now();
    send({
      event: 'media',
      media: {
        track: 'inbound',
        chunk: String(chunk + 1),
        timestamp: String(lineMs),
        payload: (speech ?? SILENT_FRAME).toString('base64'),
      },
    });
  };

  /** Whether the caller takes its next turn at `lineMs`. */
  const turnDue = (lineMs: number): boolean => {
    if (turn || callerFrames.length || keys.length) return false;
    if (answerDoneAt !== null) {
      // Nothing left to say (a goodbye, or the last turn the limit allows): the agent's hang-up is awaited.
      const pause = hangingUp || talk.callerTurns >= options.maxTurns ? GOODBYE_GRACE_MS : REPLY_PAUSE_MS;
      return lineMs >= answerDoneAt + pause && (heardSinceAnswer || lineMs >= answerDoneAt + HEARING_WAIT_MS);
    }
    // An interrupting caller hears the greeting out, then talks over each answer, while it has something to say.
    return (
      options.interrupts &&
      !hangingUp &&
      talk.callerTurns < options.maxTurns &&
      talk.callerTurns > 0 &&
      answerStartedAt !== null &&
      lineMs >= answerStartedAt + BARGE_IN_AFTER_MS
    );
  };

  const deadline = Date.now() + options.timeoutSeconds * 1000;
  let earsClosed = false;
  try {
    await new Promise((resolve, reject) => {
      ws.once('open', resolve).once('error', reject);
      setTimeout(
        () => reject(new ConversationTimeoutError(options.timeoutSeconds)),
        options.timeoutSeconds * 1000,
      ).unref();
    });
    await connection.begin(send);
    const startedAt = Date.now();
    let chunk = 0;
    while (!closed && !ending) {
      if (Date.now() >= deadline) {
        ws.terminate();
        throw new ConversationTimeoutError(options.timeoutSeconds);
      }
      if (failure) throw failure;
      // Every frame due on the line's clock goes now: a late wake-up keeps the line's time.
      const due = Math.floor(((Date.now() - startedAt) * line.pace) / FRAME_MS);
      for (; chunk <= due && !closed; chunk += 1) {
        const lineMs = chunk * FRAME_MS;
        tick(chunk, lineMs);
        if (agentHangingUp || !turnDue(lineMs)) continue;
        if (hangingUp) ending = 'caller';
        else if (talk.callerTurns >= options.maxTurns) ending = 'turn_limit';
        else
          turn = takeTurn(lineMs)
            .catch((error: unknown) => {
              failure = error as Error;
            })
            .finally(() => {
              turn = null;
            });
      }
      await sleep(FRAME_MS / line.pace);
    }
    if (ending) {
      send({ event: 'stop' });
      ws.close(1000, 'caller hung up');
      talk.endedBy = ending;
    } else {
      if (!connected && closeInfo.code >= 4000) throw new SessionRefusedError(closeInfo.code, closeInfo.reason);
      talk.endedBy = 'agent';
    }
    await turn;
    // The last words heard come with the stream's close.
    earsClosed = true;
    await ears.close();
    talk.transcript = transcriptSoFar();
    return talk;
  } finally {
    if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) ws.terminate();
    if (!earsClosed) await ears.close().catch(() => undefined);
  }
}
