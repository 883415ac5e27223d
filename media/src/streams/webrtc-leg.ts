/**
 * The peer-to-peer WebRTC leg of a `smallwebrtc` session: the browser's SDP offer comes over the
 * session WebSocket and is answered here (werift: ICE, DTLS-SRTP), its Opus audio is decoded to
 * the 8 kHz mu-law frames the agent loop hears, and the agent's frames are Opus-encoded and sent
 * as RTP, paced at one 20 ms frame per 20 ms as a phone network plays them (the agent loop sends
 * speech as fast as it is synthesized). `clear` drops what has not been sent; a `mark` is echoed
 * when the audio before it has gone out, as a telephony provider does.
 */
import OpusScript from 'opusscript';
import { MediaStreamTrack, RTCPeerConnection, RTCRtpCodecParameters, RtpHeader, RtpPacket } from 'werift';
import { decodeMulaw, encodeMulaw } from '../audio/mulaw.ts';
import type { LogFn } from '../call/call-types.ts';

/** Where the leg gathers ICE candidates, and which of the browser's it tries. */
export interface WebRtcSettings {
  /** Host addresses to offer (the local stack: 127.0.0.1 only, so every packet stays on loopback). */
  hostAddresses: string[];
  /** Only candidate pairs whose remote address is one of these are checked (none given: any). */
  remoteAddresses?: string[];
}

const SAMPLE_RATE = 8000;
const FRAME_SAMPLES = 160;
const FRAME_MS = 20;
/** Opus' RTP clock is 48 kHz whatever the audio's rate (RFC 7587). */
const RTP_TICKS_PER_FRAME = 960;

export class WebRtcLeg {
  private readonly pc: RTCPeerConnection;
  private readonly track = new MediaStreamTrack({ kind: 'audio' });
  // The asm.js build: the media service is one bundled file, and the WASM build loads a file of its own.
  private readonly encoder = new OpusScript(SAMPLE_RATE, 1, OpusScript.Application.VOIP, { wasm: false });
  private readonly decoder = new OpusScript(SAMPLE_RATE, 1, OpusScript.Application.VOIP, { wasm: false });
  /** Agent frames and marks waiting for their turn on the wire. */
  private queue: ({ kind: 'audio'; mulaw: Buffer } | { kind: 'mark'; frame: Record<string, unknown> })[] = [];
  private readonly pacer: NodeJS.Timeout;
  private sequence = Math.floor(Math.random() * 0xffff);
  private timestamp = Math.floor(Math.random() * 0xffffffff);
  private firstInboundTimestamp: number | null = null;
  /** Canonical frames for the agent loop: the caller's audio, echoed marks. */
  private readonly deliver: (frame: Record<string, unknown>) => void;
  private readonly log: LogFn;

  constructor(settings: WebRtcSettings, deliver: (frame: Record<string, unknown>) => void, log: LogFn) {
    this.deliver = deliver;
    this.log = log;
    const remote = settings.remoteAddresses;
    this.pc = new RTCPeerConnection({
      codecs: { audio: [new RTCRtpCodecParameters({ mimeType: 'audio/opus', clockRate: 48_000, channels: 2 })] },
      // Host candidates on exactly these addresses: werift would otherwise add every interface's
      // (and falls back to them when a bind address is not among them, as loopback never is).
      iceUseIpv4: false,
      iceUseIpv6: false,
      iceAdditionalHostAddresses: settings.hostAddresses,
      iceUseTcp: false,
      ...(remote ? { iceFilterCandidatePair: (pair) => remote.includes(pair.remoteCandidate.host) } : {}),
    });
    const transceiver = this.pc.addTransceiver(this.track, { direction: 'sendrecv' });
    transceiver.onTrack.subscribe((incoming) => incoming.onReceiveRtp.subscribe((rtp) => this.onRtp(rtp)));
    this.pacer = setInterval(() => this.sendNext(), FRAME_MS);
    this.pacer.unref();
  }

  /** The browser's offer in, the answer (with every candidate: no trickle) out. */
  async answer(offer: string): Promise<string> {
    await this.pc.setRemoteDescription({ type: 'offer', sdp: offer });
    await this.pc.setLocalDescription(await this.pc.createAnswer());
    return this.pc.localDescription!.sdp;
  }

  /** A frame the agent loop sends: audio and marks go on the wire in order, `clear` empties it. */
  send(frame: Record<string, unknown>): void {
    if (frame.event === 'media') {
      const payload = (frame.media as { payload?: string } | undefined)?.payload ?? '';
      this.queue.push({ kind: 'audio', mulaw: Buffer.from(payload, 'base64') });
    } else if (frame.event === 'mark') {
      this.queue.push({ kind: 'mark', frame });
    } else if (frame.event === 'clear') {
      const marks = this.queue.filter((entry) => entry.kind === 'mark');
      this.queue = [];
      for (const mark of marks) this.deliver(mark.frame);
    }
  }

  close(): void {
    clearInterval(this.pacer);
    this.encoder.delete();
    this.decoder.delete();
    void this.pc.close();
  }

  private onRtp(rtp: RtpPacket): void {
    try {
      const pcm = this.decoder.decode(rtp.payload);
      const samples = new Int16Array(pcm.buffer, pcm.byteOffset, pcm.byteLength / 2);
      // Media time from the RTP clock: gaps (silence suppression, loss) keep their place.
      this.firstInboundTimestamp ??= rtp.header.timestamp;
      const ticks = (rtp.header.timestamp - this.firstInboundTimestamp) >>> 0;
      this.deliver({
        event: 'media',
        media: {
          track: 'inbound',
          payload: encodeMulaw(samples).toString('base64'),
          timestamp: String(Math.round(ticks / 48)),
        },
      });
    } catch (error) {
      this.log('warn', 'dropping an undecodable Opus packet', { error: String(error) });
    }
  }

  private sendNext(): void {
    while (this.queue[0]?.kind === 'mark')
      this.deliver((this.queue.shift() as { frame: Record<string, unknown> }).frame);
    const next = this.queue.shift();
    if (!next || next.kind !== 'audio') return;
    const pcm = Buffer.from(decodeMulaw(next.mulaw.subarray(0, FRAME_SAMPLES)).buffer);
    const opus = this.encoder.encode(pcm, FRAME_SAMPLES);
    this.sequence = (this.sequence + 1) & 0xffff;
    this.timestamp = (this.timestamp + RTP_TICKS_PER_FRAME) >>> 0;
    const header = new RtpHeader();
    header.payloadType = this.pc.getTransceivers()[0]?.codecs[0]?.payloadType ?? 111;
    header.sequenceNumber = this.sequence;
    header.timestamp = this.timestamp;
    header.marker = false;
    this.track.writeRtp(new RtpPacket(header, opus));
  }
}
