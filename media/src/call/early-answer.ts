/**
 * An answer started at an eager end of turn (Deepgram Flux's `EagerEndOfTurn`): the brain writes
 * it while the caller may still go on, but nothing of it is said, and no tool runs, until the end
 * of the turn confirms it; if the caller goes on, it is thrown away unheard. What it saves is the
 * model's time to its first sentence, counted from the eager end rather than the end of the turn.
 */
import { wrapAnswer, type Answer, type Brain } from './brain.ts';
import type { CallerTurn } from './caller-turns.ts';
import type { Speaker } from './reply.ts';
import type { TurnLatency } from './turn-latency.ts';

export class EarlyAnswer {
  /** What the answer did before the turn was confirmed, done in order once it is. */
  private held: (() => void)[] | null = [];
  private settle!: (confirmed: boolean) => void;
  /** True once the end of the turn confirms the answer, false if it is thrown away. */
  readonly settled = new Promise<boolean>((resolve) => (this.settle = resolve));

  /** `turn`: the caller's words at the eager end of turn. */
  constructor(readonly turn: CallerTurn) {}

  /** The answer as the brain writes it: what it says, its last words and a hang-up wait for confirm(). */
  hold(answer: Answer): Answer {
    const later = (action: () => void) => (this.held ? this.held.push(action) : action());
    return wrapAnswer(answer, {
      turnSettled: this.settled,
      say: (text, audio, options) => later(() => answer.say(text, audio, options)),
      finalWords: (text) => later(() => answer.finalWords(text)),
      hangUp: () => later(() => answer.hangUp()),
    });
  }

  /** The turn ended with these words: the answer is said. */
  confirm(): void {
    const held = this.held ?? [];
    this.held = null;
    for (const action of held) action();
    this.settle(true);
  }

  /** The caller went on: nothing of the answer is said (its reply is aborted by the pipeline). */
  drop(): void {
    this.held = [];
    this.settle(false);
  }
}

/** What early answers work with: the reply's speaker, the turn's latency, the call's log. */
export interface EarlyAnswerContext {
  speaker: Pick<Speaker, 'start' | 'abort'>;
  latency: Pick<TurnLatency, 'turn' | 'retract'>;
  log(): void;
}

/** The call's early answer, if any: begun at an eager end of turn, said or thrown away at its end. */
export class EarlyAnswers {
  private early: EarlyAnswer | null = null;

  constructor(private readonly context: EarlyAnswerContext) {}

  /**
   * An eager end of turn: the answer is begun now and held, for an agent that asked for early
   * answers (`eager`) and a brain that can take a turn back (a flow cannot: it moves on a turn).
   */
  begin(turn: CallerTurn, brain: Brain, eager: boolean): void {
    if (turn.backchannel || !eager || !brain.retractCaller) return;
    this.drop(brain);
    const early = new EarlyAnswer(turn);
    this.early = early;
    this.context.latency.turn(turn.endMs, turn.finalMs);
    brain.hearCaller(turn.text);
    this.context.speaker.start(async (answer) => {
      await brain.answer(early.hold(answer), turn.text);
      // The reply stays open until the turn settles: what was held is said into it.
      await early.settled;
    });
  }

  /**
   * The caller's turn ended: an early answer begun for the same words is said (true: the turn is
   * answered); one begun for other words, or for a turn that came to nothing, is thrown away.
   */
  end(turn: CallerTurn | null, brain: Brain): boolean {
    const early = this.early;
    if (!early) return false;
    if (!turn || turn.backchannel || turn.text !== early.turn.text) {
      this.drop(brain);
      return false;
    }
    this.early = null;
    early.confirm();
    return true;
  }

  /** The caller went on after an eager end of turn: the early answer is thrown away unheard. */
  drop(brain: Brain | undefined): void {
    const early = this.early;
    if (!early) return;
    this.early = null;
    early.drop();
    this.context.speaker.abort();
    brain?.retractCaller?.(early.turn.text);
    this.context.latency.retract();
    this.context.log();
  }
}
