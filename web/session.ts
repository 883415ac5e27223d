/**
 * Browser client of a conversation's session (`POST /agents/{agent_id}/conversations` with mode
 * `webrtc` or `chat` returns `session`): connects to the media service's session WebSocket and
 * speaks its frames (components SessionClientFrame and SessionEvent of the OpenAPI document).
 *
 *   const { data } = await api.POST('/agents/{agent_id}/conversations', {
 *     params: { path: { agent_id } }, body: { mode: 'chat' },
 *   });
 *   const chat = connectChat(data.session!, { onText: (text) => show(text) });
 *   chat.send('What are your opening hours?');
 *
 *   const call = await connectVoice(data.session!, { onTranscript: (line) => show(line.text) });
 *   call.stop();
 *
 * Voice: the microphone is captured at 8 kHz (the AudioContext resamples it), sent as 20 ms mu-law
 * frames, and the agent's frames are played in order; `clear` drops what has not played yet, and
 * each `mark` is echoed once the audio before it has played, as a telephony provider does.
 */
import { decodeMulaw, linearToMulaw } from '../media/src/audio/mulaw.ts';
import type { components } from '../client/openapi.d.ts';

export type SessionAccess = NonNullable<components['schemas']['SessionAccess']>;
export type SessionEvent = components['schemas']['SessionEvent'];
type EventOf<Name extends SessionEvent['event']> = Extract<SessionEvent, { event: Name }>;

export interface SessionHandlers {
  /** A transcript line once final: the user's turn, or what the agent said (as played). */
  onTranscript?: (line: Omit<EventOf<'transcript'>, 'event'>) => void;
  /** Chat: the next sentence of the agent's answer. */
  onText?: (text: string) => void;
  /** Chat: the agent's answer is complete. */
  onAnswerEnd?: () => void;
  onToolCall?: (call: Omit<EventOf<'tool_call'>, 'event'>) => void;
  onKnowledge?: (passages: EventOf<'knowledge'>['passages']) => void;
  /** A frame the service refused (the session goes on). */
  onError?: (detail: string) => void;
}

export interface SessionEnd {
  /** 1000: the agent or the client ended it; 4401, 4409, 4429, 4503: refused (the reason says why). */
  code: number;
  reason: string;
}

interface Connection {
  socket: WebSocket;
  /** Resolves once the start frame is sent: other frames may follow. */
  started: Promise<void>;
  send: (frame: Record<string, unknown>) => void;
  /** Resolves when the conversation is over. */
  closed: Promise<SessionEnd>;
  /** Ends the conversation from the client (the run completes). */
  stop: () => void;
}

function open(
  access: Pick<SessionAccess, 'url' | 'run_ref' | 'token'>,
  handlers: SessionHandlers,
  onFrame: (frame: SessionEvent) => void,
): Connection {
  const socket = new WebSocket(access.url);
  const send = (frame: Record<string, unknown>) => {
    if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(frame));
  };
  const started = new Promise<void>((resolve) =>
    socket.addEventListener('open', () => {
      send({ event: 'start', start: { customParameters: { run_ref: access.run_ref, stream_token: access.token } } });
      resolve();
    }),
  );
  socket.addEventListener('message', (message: MessageEvent<string>) => {
    const frame = JSON.parse(message.data) as SessionEvent;
    if (frame.event === 'transcript') handlers.onTranscript?.(without(frame));
    else if (frame.event === 'tool_call') handlers.onToolCall?.(without(frame));
    else if (frame.event === 'knowledge') handlers.onKnowledge?.(frame.passages);
    else if (frame.event === 'error') handlers.onError?.(frame.detail);
    onFrame(frame);
  });
  const closed = new Promise<SessionEnd>((resolve) =>
    socket.addEventListener('close', (event) => resolve({ code: event.code, reason: event.reason })),
  );
  const stop = () => {
    send({ event: 'stop' });
    socket.close(1000);
  };
  return { socket, send, started, closed, stop };
}

function without<Frame extends { event: string }>(frame: Frame): Omit<Frame, 'event'> {
  const { event: _event, ...rest } = frame;
  return rest;
}

export interface ChatSession {
  /** Sends the user's message (1 to 4,000 characters); it stops an answer still being written. */
  send: (text: string) => void;
  /** Ends the conversation (the run completes). */
  stop: () => void;
  closed: Promise<SessionEnd>;
}

/** Connects a `chat` conversation. */
export function connectChat(access: SessionAccess, handlers: SessionHandlers = {}): ChatSession {
  const connection = open(access, handlers, (frame) => {
    if (frame.event === 'text') handlers.onText?.(frame.text);
    if (frame.event === 'mark') {
      connection.send(frame); // nothing to play: read at once
      handlers.onAnswerEnd?.();
    }
  });
  return {
    send: (text) => connection.send({ event: 'message', text }),
    stop: connection.stop,
    closed: connection.closed,
  };
}

export interface VoiceOptions extends SessionHandlers {
  /**
   * Microphone constraints. Echo cancellation stays on by default, so the agent does not hear
   * itself through the speakers; turn processing off for a clean test signal.
   */
  audio?: MediaTrackConstraints;
  /** Where the agent is played (default: the AudioContext's speakers). */
  output?: (context: AudioContext) => AudioNode;
}

export interface VoiceSession {
  /** Hangs up (the run completes). */
  stop: () => void;
  closed: Promise<SessionEnd>;
  /** 20 ms frames sent from the microphone, and agent frames played. */
  readonly stats: { framesSent: number; framesPlayed: number };
}

const SAMPLE_RATE = 8000;
const FRAME_SAMPLES = 160;

/** Collects the microphone's samples on the audio thread and hands them to the page. */
const CAPTURE_WORKLET = `
registerProcessor('session-capture', class extends AudioWorkletProcessor {
  process(inputs) {
    const channel = inputs[0] && inputs[0][0];
    if (channel) this.port.postMessage(channel.slice(0));
    return true;
  }
});`;

/** Connects a `webrtc` conversation: asks for the microphone, then talks. */
export async function connectVoice(access: SessionAccess, options: VoiceOptions = {}): Promise<VoiceSession> {
  const microphone = await navigator.mediaDevices.getUserMedia({ audio: options.audio ?? true });
  const context = new AudioContext({ sampleRate: SAMPLE_RATE });
  const workletUrl = URL.createObjectURL(new Blob([CAPTURE_WORKLET], { type: 'application/javascript' }));
  await context.audioWorklet.addModule(workletUrl);
  URL.revokeObjectURL(workletUrl);
  const output = options.output?.(context) ?? context.destination;
  const stats = { framesSent: 0, framesPlayed: 0 };

  /** Agent audio scheduled and not yet played (stopped by `clear`), and when the queue ends. */
  let playing: AudioBufferSourceNode[] = [];
  let queueEnd = 0;
  /** Marks waiting for the audio before them to play. */
  const marks = new Map<ReturnType<typeof setTimeout>, SessionEvent>();

  const connection = open(access, options, (frame) => {
    if (frame.event === 'media') {
      const samples = decodeMulaw(Uint8Array.from(atob(frame.media.payload), (char) => char.charCodeAt(0)));
      const buffer = context.createBuffer(1, samples.length, SAMPLE_RATE);
      buffer.getChannelData(0).set(Float32Array.from(samples, (sample) => sample / 32768));
      const source = context.createBufferSource();
      source.buffer = buffer;
      source.connect(output);
      queueEnd = Math.max(queueEnd, context.currentTime);
      source.start(queueEnd);
      queueEnd += buffer.duration;
      playing.push(source);
      source.addEventListener('ended', () => {
        playing = playing.filter((node) => node !== source);
        stats.framesPlayed += 1;
      });
    } else if (frame.event === 'clear') {
      for (const source of playing) source.stop();
      playing = [];
      queueEnd = context.currentTime;
      // The marks of what was dropped are echoed at once, as a provider does.
      for (const [timer, mark] of marks) {
        clearTimeout(timer);
        connection.send(mark);
      }
      marks.clear();
    } else if (frame.event === 'mark') {
      const timer = setTimeout(
        () => {
          marks.delete(timer);
          connection.send(frame);
        },
        Math.max(0, (queueEnd - context.currentTime) * 1000),
      );
      marks.set(timer, frame);
    }
  });

  // The microphone, in 20 ms mu-law frames stamped with the time since the session started.
  const capture = new AudioWorkletNode(context, 'session-capture');
  let pending: number[] = [];
  capture.port.onmessage = (message: MessageEvent<Float32Array>) => {
    for (const sample of message.data) pending.push(Math.max(-1, Math.min(1, sample)) * 32767);
    while (pending.length >= FRAME_SAMPLES) {
      const frame = pending.slice(0, FRAME_SAMPLES);
      pending = pending.slice(FRAME_SAMPLES);
      const bytes = Uint8Array.from(frame, (sample) => linearToMulaw(sample));
      connection.send({
        event: 'media',
        media: { payload: btoa(String.fromCharCode(...bytes)), timestamp: String(stats.framesSent * 20) },
      });
      stats.framesSent += 1;
    }
  };
  context.createMediaStreamSource(microphone).connect(capture);

  void connection.closed.then(() => {
    for (const track of microphone.getTracks()) track.stop();
    void context.close();
  });
  return {
    stop: connection.stop,
    closed: connection.closed,
    stats,
  };
}

export interface PeerVoiceOptions extends SessionHandlers {
  /** Microphone constraints, as for connectVoice. */
  audio?: MediaTrackConstraints;
  /** STUN and TURN servers for ICE (none: host candidates only). */
  iceServers?: RTCIceServer[];
}

/**
 * Connects a `smallwebrtc` conversation: the microphone and the agent's voice go over a
 * peer-to-peer WebRTC connection (Opus, DTLS-SRTP) with the media service; the session WebSocket
 * carries the SDP offer and answer and the session's events.
 */
export async function connectPeerVoice(access: SessionAccess, options: PeerVoiceOptions = {}): Promise<VoiceSession> {
  const microphone = await navigator.mediaDevices.getUserMedia({ audio: options.audio ?? true });
  const pc = new RTCPeerConnection({ iceServers: options.iceServers ?? [] });
  for (const track of microphone.getAudioTracks()) pc.addTrack(track, microphone);
  const speaker = new Audio();
  speaker.autoplay = true;
  pc.addEventListener('track', (event) => {
    speaker.srcObject = event.streams[0] ?? new MediaStream([event.track]);
  });
  const stats = { framesSent: 0, framesPlayed: 0 };
  const connection = open(access, options, (frame) => {
    if (frame.event === 'answer') void pc.setRemoteDescription({ type: 'answer', sdp: frame.sdp });
  });
  // The whole offer at once: the service's WebRTC leg takes no trickled candidates.
  await pc.setLocalDescription(await pc.createOffer());
  if (pc.iceGatheringState !== 'complete')
    await new Promise<void>((resolve) =>
      pc.addEventListener('icegatheringstatechange', () => pc.iceGatheringState === 'complete' && resolve()),
    );
  await connection.started;
  connection.send({ event: 'offer', sdp: pc.localDescription!.sdp });
  // 20 ms frames out and in, from the connection's statistics.
  const counter = setInterval(async () => {
    for (const report of (await pc.getStats()).values()) {
      if (report.type === 'outbound-rtp') stats.framesSent = report.packetsSent ?? stats.framesSent;
      if (report.type === 'inbound-rtp' && report.totalSamplesReceived !== undefined)
        stats.framesPlayed = Math.floor(report.totalSamplesReceived / 960);
    }
  }, 250);
  void connection.closed.then(() => {
    clearInterval(counter);
    for (const track of microphone.getTracks()) track.stop();
    pc.close();
  });
  return {
    stop: connection.stop,
    closed: connection.closed,
    stats,
  };
}
