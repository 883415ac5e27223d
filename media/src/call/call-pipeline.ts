/**
 * One call as a pipeline of parts, wired here; independent of the transport: feed it parsed
 * inbound Media Streams JSON via handle(), it calls send() with outbound messages (`media`,
 * `mark`, `clear`; a chat's `text`). docs/voice-agent.md#the-call-pipeline draws it:
 *
 * - media-stream-frames.ts reads the transport's frames and writes the pipeline's output;
 * - call-parts.ts assembles the parts that work with the prepared call, call-opening.ts says its
 *   first words while the speech-to-text stream opens;
 * - caller-turns.ts makes the caller's turns from their audio (speech-to-text, endpointing, the
 *   words that barge in, false starts), keypad.ts the keys they press into entries;
 * - the brain (brain.ts, today prompt-brain.ts with agent-tools.ts) writes each answer;
 * - reply.ts speaks it (the speech queue, marks, what played, the cut of a barge-in, resuming);
 * - call-clocks.ts keeps the silence, length and idle limits on media-clock.ts;
 * - live-tap.ts lets the call be followed and steered (live-control.ts); handoff.ts hands it on.
 */
import { CallRecorder } from '../audio/recorder.ts';
import { MAX_CHAT_MESSAGE_CHARS } from '../../../shared/domain/browser-sessions.ts';
import type { TranscriptFragment } from '../../../shared/domain/transcripts.ts';
import type { TransferIntent } from '../../../shared/schemas/call-transfer.ts';
import type { ClockAction } from './call-clocks.ts';
import { CallEnding } from './call-ending.ts';
import { openCall } from './call-opening.ts';
import type { CallPipelineOptions, HangUpInfo, LogFn, SessionResult } from './call-types.ts';
import { CallerTurns, turnFragment, type CallerTurn } from './caller-turns.ts';
import { EarlyAnswers } from './early-answer.ts';
import { isKey, keypadTurn, type KeypadEntry } from './keypad.ts';
import { applyCommand, CommandWords } from './live-control.ts';
import { currentStepEvent, LiveTap, type LiveCommand, type LiveEvent } from './live-tap.ts';
import { MediaClock } from './media-clock.ts';
import { readFrame, replyFrames, type InboundFrame } from './media-stream-frames.ts';
import { assembleParts, type CallParts } from './call-parts.ts';
import { Speaker } from './reply.ts';
import { TurnLatency } from './turn-latency.ts';

export class CallPipeline {
  streamSid: string | null = null;
  callSid: string | null = null;
  runRef: string | null = null;
  readonly fragments: TranscriptFragment[] = [];
  readonly gathered: Record<string, unknown> = {};
  /** Each caller turn's latency, from the end of their speech to the answer's first frame, and the greeting's. */
  readonly latency: TurnLatency;
  /** Resolves once, at stop or when finish() is called by the transport. */
  readonly finished: Promise<SessionResult>;
  /** Resolves when the agent hung up (after its last words were sent) or a provider failed. */
  readonly hangUpRequested: Promise<HangUpInfo>;

  private readonly options: CallPipelineOptions;
  private readonly log: LogFn;
  private readonly chat: boolean;
  private readonly clock: MediaClock;
  private readonly recorder: CallRecorder | null;
  private readonly tap: LiveTap;
  private readonly speaker: Speaker;
  private readonly turns: CallerTurns;
  private parts: CallParts | null = null;
  /** An answer begun at an eager end of turn, held until the turn's end confirms it. */
  private readonly early: EarlyAnswers;
  /** Resolves when the call is set up (or could not be), or ends before its stream starts. */
  private readonly ready: Promise<void>;
  private resolveReady!: () => void;
  private readonly ending: CallEnding;
  private closing = false;
  private ended = false;
  /** Answers begun to the conversation (a caller's text is answered unless one began after it came). */
  private answersBegun = 0;
  private readonly commandWords = new CommandWords((error) => this.fail(error));
  private resolveFinished!: (result: SessionResult) => void;

  constructor(options: CallPipelineOptions) {
    this.options = options;
    this.chat = options.transport === 'text';
    this.log = options.log ?? (() => {});
    this.clock = new MediaClock(options.clock ?? Date.now);
    this.latency = new TurnLatency({ nowMs: () => this.clock.preciseMs() });
    this.recorder = this.chat ? null : new CallRecorder();
    const runRef = () => this.runRef;
    this.tap = new LiveTap(
      { sessionEvents: options.sessionEvents === true, send: (event) => this.send(event), log: this.log },
      runRef,
    );
    this.speaker = new Speaker({
      clock: this.clock,
      chat: this.chat,
      recorder: this.recorder,
      isEnded: () => this.ended,
      log: this.log,
      runRef,
      trace: this.latency,
      out: replyFrames(
        (message) => this.send(message),
        () => this.streamSid,
        this.tap,
      ),
      events: {
        transcript: (fragment) => this.addFragment(fragment),
        untranscribe: (fragment) => this.fragments.splice(this.fragments.indexOf(fragment), 1),
        heard: (text) => this.parts!.brain.heardAgent(text),
        hangUp: () => {
          if (!this.ending.wantsHangUp && !this.ended) this.ending.hangUp();
        },
        failed: (error) => this.fail(error),
      },
    });
    this.turns = new CallerTurns(
      this.clock,
      () => this.parts?.call.plan.settings.bargeInMinWords ?? 1,
      {
        words: (enough) => this.onCallerWords(enough),
        ended: (turn) => this.endOfCallerTurn(turn),
        eager: (turn) => {
          if (this.parts && !this.closing)
            this.early.begin(turn, this.parts.brain, this.parts.call.plan.settings.turnTaking.eager);
        },
        resumed: () => this.early.drop(this.parts?.brain),
        // The caller's voice, before its words (the realtime engine): the silence clock counts from its end.
        voice: () => this.parts?.clocks.activity(this.clock.nowMs()),
      },
      {
        backchannels: () => this.parts?.call.plan.settings.turnTaking.backchannels ?? [],
        agentTalking: () =>
          this.speaker.answering || this.speaker.paused || this.speaker.playbackEndMs > this.clock.nowMs(),
      },
    );
    this.early = new EarlyAnswers({
      speaker: this.speaker,
      latency: this.latency,
      log: () => this.log('info', 'early answer thrown away: the caller went on', { runRef: this.runRef }),
    });
    this.ending = new CallEnding({
      log: this.log,
      runRef,
      isEnded: () => this.ended,
      playbackRemainingMs: () => this.speaker.playbackEndMs - this.clock.nowMs(),
      silence: () => {
        this.speaker.abort();
        void this.turns.close();
      },
      sayLast: (text) => this.speaker.say(text, true),
      onHangUp: options.onHangUp,
    });
    this.finished = new Promise((resolve) => (this.resolveFinished = resolve));
    this.ready = new Promise((resolve) => (this.resolveReady = resolve));
    this.hangUpRequested = this.ending.hangUpRequested;
  }

  get isFinished(): boolean {
    return this.ended;
  }

  /** Offset from stream start (ms) at which the audio sent so far finishes playing. */
  get playbackEndMs(): number {
    return this.speaker.playbackEndMs;
  }

  /** Resolves when the call is set up and its opening words are sent (tests). */
  get opened(): Promise<void> {
    return this.ready;
  }

  /** A transfer asked for, carried out once its handoff phrase has played (the transport's owner does it). */
  get transferIntent(): TransferIntent | null {
    return this.parts?.handoff.intent ?? null;
  }

  /** A line in the run's logs from the transport (why it closed a chat over its limits), once the call is set up. */
  logToRun(level: 'INFO' | 'WARN' | 'ERROR', message: string): void {
    if (this.parts) return this.parts.call.runLog?.(level, message);
    void this.ready.then(() => this.parts?.call.runLog?.(level, message));
  }

  /** Resolves when the answer in progress, if any, is complete (tests, bench). */
  idle(): Promise<void> {
    return this.speaker.idle();
  }

  /**
   * Follows the call as it happens (LiveEvent) until it ends; returns the way to stop following. In
   * a flow, a listener who joins hears the step the call is in first (the `flow_step` it entered by).
   */
  observe(listener: (event: LiveEvent) => void): () => void {
    if (this.ended) {
      listener({ event: 'end' });
      return () => {};
    }
    const stop = this.tap.observe(listener);
    const step = currentStepEvent(this.parts?.brain.flowPath() ?? null);
    if (step) listener(step);
    return stop;
  }

  /** A command of the control API, applied at once (live-control.ts); the reason it cannot be, otherwise. */
  async control(command: LiveCommand): Promise<string | null> {
    // A text from the caller (recorded on the run already) waits for the call being set up, even
    // one whose stream has not started: the agent takes it then.
    if (command.type === 'caller_text' && !this.parts) await this.ready;
    const parts = this.parts;
    if (this.ended || !parts) return this.ended ? 'the call has ended' : 'the call is not set up yet';
    if (this.closing) return 'the call is ending';
    const refusal = await applyCommand(command, {
      call: parts.call,
      handoff: parts.handoff,
      texts: parts.texts,
      brain: parts.brain,
      speaker: this.speaker,
      words: this.commandWords,
      live: () => !this.closing && !this.ended,
      ended: () => this.ended || this.ending.wantsHangUp,
      closing: () => (this.closing = true),
      answer: () => this.answer(null),
      answersBegun: () => this.answersBegun,
      callerTurnUnderWay: () => this.turns.busy || parts.keypad.pending,
      heard: () => parts.clocks.heard(this.clock.nowMs()),
      goodbye: (text) => this.goodbye(text),
      endNow: () => {
        this.closing = true;
        this.speaker.interrupt('time');
        this.ending.hangUp();
      },
    });
    if (refusal) return refusal;
    this.tap.notify({ event: 'control', ...command });
    return null;
  }

  /** The agent's voice saying `text`, as 8 kHz mu-law (a warm transfer's message for a provider that plays audio). */
  synthesize(text: string): Promise<Buffer> {
    return this.parts!.handoff.synthesize(text);
  }

  /** Handles one parsed inbound message. Never throws; malformed input is logged and dropped. */
  async handle(message: unknown): Promise<void> {
    try {
      const frame = readFrame(message);
      if (frame.type === 'malformed') return this.log('warn', 'ignoring malformed media stream message');
      if (this.ended) return;
      switch (frame.type) {
        case 'ignored':
          return;
        case 'key':
          return this.onKey(frame.key);
        case 'message':
          return this.onMessage(frame.text);
        case 'start':
          return this.onStart(frame);
        case 'audio':
          return this.onAudio(frame);
        case 'stop':
          await this.finish('stop');
          return;
        case 'unknown':
          this.log('warn', 'ignoring unknown media stream event', { event: frame.event });
      }
    } catch (error) {
      this.log('error', 'media session failed to handle message', { error: String(error) });
    }
  }

  /** Ends the session (idempotent): stops the agent and the speech stream, then resolves `finished`. */
  async finish(reason: 'stop' | 'closed' = 'closed'): Promise<SessionResult> {
    if (!this.ended) {
      this.ended = true;
      this.parts?.clocks.stop();
      if (!this.clock.started) this.resolveReady();
      await this.ready;
      // The caller hung up: an answer still playing was cut there.
      this.speaker.stop(this.ending.wantsHangUp);
      await this.idle();
      await this.turns.close();
      const now = this.clock.wall();
      this.tap.end({ event: 'end', reason, failure: this.ending.failure });
      // A hang-up waits for its mark, so what is left unplayed here never reached the caller.
      this.speaker.recordPlayed(
        reason === 'closed' && this.ending.wantsHangUp ? Number.POSITIVE_INFINITY : this.clock.nowMs(),
      );
      this.resolveFinished({
        runRef: this.runRef,
        streamSid: this.streamSid,
        callSid: this.callSid,
        startedAt: new Date(this.clock.startedAtEpochMs ?? now).toISOString(),
        endedAt: new Date(now).toISOString(),
        reason,
        failure: this.ending.failure,
        agentEnded: this.ending.wantsHangUp && reason === 'closed',
        fragments: [...this.fragments].sort((a, b) => a.timestamp.localeCompare(b.timestamp)),
        gathered: { ...this.gathered },
        recording: this.recorder?.finish() ?? null,
        durationMs: this.recorder?.durationMs ?? 0,
        transfer: this.transferIntent,
        latency: this.latency.recorded(),
        flow: this.parts?.brain.flowPath() ?? null,
        speechToSpeech: this.parts?.brain.usage() ?? null,
      });
    }
    return this.finished;
  }

  private onStart(frame: Extract<InboundFrame, { type: 'start' }>): void {
    if (this.clock.started) return this.log('warn', 'ignoring duplicate start event');
    ({ streamSid: this.streamSid, callSid: this.callSid, runRef: this.runRef } = frame);
    this.clock.start();
    const format = frame.mediaFormat;
    if (format && !this.chat && (format.encoding !== 'audio/x-mulaw' || Number(format.sampleRate) !== 8000)) {
      this.log('warn', 'unexpected media format; treating audio as 8 kHz mu-law', { mediaFormat: format });
    }
    this.log('info', 'media stream started', { streamSid: this.streamSid, callSid: this.callSid, runRef: this.runRef });
    void this.open()
      .catch((error: unknown) => this.fail(error))
      .finally(() => this.resolveReady());
  }

  private async open(): Promise<void> {
    const call = await this.options.prepare(this.runRef);
    const parts = assembleParts(call, {
      chat: this.chat,
      timing: this.options.timing,
      gathered: this.gathered,
      tap: this.tap,
      speaker: this.speaker,
      closing: () => (this.closing = true),
      isEnded: () => this.ended,
      log: this.log,
      runRef: () => this.runRef,
      trace: this.latency,
      now: () => new Date(this.clock.wall()).toISOString(),
      nowMs: () => this.clock.nowMs(),
      transcriptEvent: (text, role = 'assistant') => {
        const at = this.clock.isoAt(this.clock.nowMs());
        this.addFragment({ timestamp: at, end: at, role, text });
      },
    });
    this.parts = parts;
    if (this.ended) return;
    await openCall(parts, {
      chat: this.chat,
      speaker: this.speaker,
      turns: this.turns,
      latency: this.latency,
      log: this.log,
      runRef: () => this.runRef,
      nowMs: () => this.clock.nowMs(),
      answer: () => this.answer(null),
      checkClock: () => this.checkClock(),
      fail: (error) => this.fail(error),
    });
  }

  private onAudio(frame: Extract<InboundFrame, { type: 'audio' }>): void {
    if (!this.clock.started) return this.log('warn', 'ignoring media before start');
    const { payload } = frame;
    if (payload === null) return this.log('warn', 'ignoring media message without payload');
    if (!frame.inbound) return;
    const bytes = Buffer.from(payload, 'base64');
    if (bytes.length === 0) return;
    const atMs = frame.timestampMs ?? this.clock.nowMs();
    this.clock.reached(atMs);
    this.recorder?.addInbound(bytes, atMs);
    if (this.tap.listening) this.tap.notify({ event: 'media', track: 'inbound', timestamp: atMs, payload });
    this.speaker.recordPlayed(this.clock.nowMs());
    this.turns.audio(bytes, atMs);
    this.checkClock();
  }

  /** Silence prompts, silence timeout, the keypad's pause, a stalled turn and the call's time limit. */
  private checkClock(): void {
    const parts = this.parts;
    if (!parts || this.closing || this.ended) return;
    const now = this.clock.nowMs();
    const action: ClockAction | null = parts.clocks.check(now, {
      keypadDue: parts.keypad.timedOut(now),
      callerSpeaking: this.turns.speaking,
      busy: this.speaker.answering || this.turns.busy || parts.keypad.pending,
      playbackEndMs: this.speaker.playbackEndMs,
    });
    const { phrases } = parts.call.plan;
    switch (action) {
      case 'time-limit':
        this.log('info', 'maximum call length reached', { runRef: this.runRef });
        return this.goodbye(phrases.timeLimitGoodbye);
      case 'keypad-timeout':
        return this.endOfKeypadEntry(parts.keypad.end());
      case 'stalled-turn':
        this.log('info', 'caller turn ended without an end of utterance', { runRef: this.runRef });
        return this.turns.end();
      case 'chat-idle':
        this.log('info', 'chat idle: ending it', { runRef: this.runRef });
        return this.goodbye(phrases.idleGoodbye);
      case 'silence-prompt':
        return this.speaker.say(phrases.silencePrompt);
      case 'silence-goodbye':
        this.log('info', 'caller silent: ending the call', { runRef: this.runRef });
        return this.goodbye(phrases.silenceGoodbye);
    }
  }

  private goodbye(text: string): void {
    this.closing = true;
    this.speaker.interrupt('time');
    this.speaker.say(text, true);
  }

  /** Caller words: a barge-in when the agent is talking or about to, once there are enough of them. */
  private onCallerWords(enough: boolean): void {
    this.parts?.clocks.heard(this.clock.nowMs());
    if (enough && !this.closing) this.speaker.interrupt('caller');
  }

  /**
   * A key the caller pressed (the provider's `dtmf` stream event): it stops the agent like words do,
   * and adds to the entry under way (keypad.ts). The entry is the caller's turn.
   */
  private onKey(key: string): void {
    const parts = this.parts;
    if (!isKey(key) || !parts || this.closing) {
      this.log('warn', 'ignoring a key press', { runRef: this.runRef, key });
      return;
    }
    const now = this.clock.nowMs();
    parts.clocks.heard(now);
    this.speaker.interrupt('caller');
    const entry = parts.keypad.press(key, now);
    if (entry) this.endOfKeypadEntry(entry);
  }

  /** A chat message: the user's turn, which stops an answer still being written. */
  private async onMessage(text: string): Promise<void> {
    if (this.chat && !this.parts) await this.ready; // sent as soon as connected: kept for when the chat is set up
    if (!this.chat || !this.parts || this.closing) {
      this.log('warn', 'ignoring a chat message', { runRef: this.runRef, chat: this.chat, closing: this.closing });
      return;
    }
    if (!text || text.length > MAX_CHAT_MESSAGE_CHARS) {
      this.send({ event: 'error', detail: `A message is 1 to ${MAX_CHAT_MESSAGE_CHARS} characters` });
      return;
    }
    this.parts.clocks.activity(this.clock.nowMs());
    this.speaker.interrupt('caller');
    this.speaker.takeCut();
    this.turns.typed(text);
  }

  private endOfKeypadEntry(entry: KeypadEntry): void {
    this.speaker.takeCut();
    if (!entry.keys || this.closing) return;
    this.latency.turn(entry.endMs, null);
    const { fragment, text } = keypadTurn(entry, (ms) => this.clock.isoAt(ms));
    this.addFragment(fragment);
    this.parts!.brain.hearCaller(text);
    this.answer(text);
  }

  private endOfCallerTurn(turn: CallerTurn | null): void {
    // The stream has stopped: a turn that its last results ended goes in the transcript, unanswered.
    if (this.ended) return void (turn && this.addFragment(turnFragment(turn, (ms) => this.clock.isoAt(ms))));
    this.parts?.clocks.activity(this.clock.nowMs());
    // Audio paused at the caller's voice (the realtime engine) that no words cut: it plays on.
    this.speaker.unpause();
    const cut = this.speaker.takeCut();
    if (this.closing) return;
    const answered = this.early.end(turn, this.parts!.brain);
    if (!turn) {
      if (cut) this.speaker.resume(cut);
      return;
    }
    this.addFragment(turnFragment(turn, (ms) => this.clock.isoAt(ms)));
    // "Mhm" over the agent: heard, in the transcript, and the agent goes on.
    if (turn.backchannel) return;
    if (answered) return void (this.answersBegun += 1); // the early answer begun for these words is said now
    this.latency.turn(turn.endMs, turn.finalMs);
    this.parts!.brain.hearCaller(turn.text);
    this.answer(turn.text);
  }

  /** The brain's answer to the conversation so far (`userText`: the caller's turn it answers). */
  private answer(userText: string | null): void {
    const { brain } = this.parts!;
    this.answersBegun += 1;
    this.speaker.start((answer) => brain.answer(answer, userText));
  }

  /** A provider failed: the call ends as failed (call-ending.ts), the first failure counts. */
  private fail(error: unknown): void {
    if (this.ending.failure || this.ended) return;
    this.closing = true;
    this.ending.fail(error, this.parts?.call);
  }

  private addFragment(fragment: TranscriptFragment): void {
    this.fragments.push(fragment);
    this.tap.sessionEvent({ event: 'transcript', ...fragment });
  }

  private send(message: object): void {
    try {
      this.options.send(message);
    } catch (error) {
      this.log('warn', 'failed to send to media stream', { error: String(error) });
    }
  }
}
