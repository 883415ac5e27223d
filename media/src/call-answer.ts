/**
 * What a call does at its answer that its preparation while it rang did not (call-sessions.ts):
 * - the notes about the caller are read then, not while it rings: most dials of a campaign are
 *   busy or unanswered, and a preparation reads nothing per dial (the agent's setup is reused);
 *   the greeting does not depend on them, so a prepared greeting stays as it was;
 * - the `call.started` event is handed to the bus without holding up the greeting; the call's
 *   ending waits for it (`CallStartedEvents.sent`), so the run's later events follow it.
 */
import type { CallPlan } from './agent/call-plan.ts';
import type { PreparedCall } from './call/call-types.ts';
import type { Memory } from '../../shared/schemas/memories.ts';
import type { RunRecord } from '../../shared/domain/run.ts';
import { emitCallStarted } from '../../shared/events/webhook-events.ts';

/** A call's setup, its plan made without the notes about its caller, and the plan with them. */
export interface CallSetup {
  call: PreparedCall;
  planWith(callerNotes: readonly Memory[]): CallPlan;
}

/** The call with the notes about its caller in its plan (the same call when there are none). */
export async function withCallerNotes(
  setup: CallSetup,
  readCallerNotes: () => Promise<readonly Memory[]>,
): Promise<PreparedCall> {
  const callerNotes = await readCallerNotes();
  return callerNotes.length ? { ...setup.call, plan: setup.planWith(callerNotes) } : setup.call;
}

/**
 * The `call.started` events of this task's calls while they are being published: `announce` starts
 * one and returns at once; `sent` resolves when it has been handed on (or its failure logged: the
 * event is best effort, as before), immediately for a run that announced none.
 */
export class CallStartedEvents<Run extends { organization_id: number; workflow_id: number; id: number }> {
  private readonly publishing = new Map<string, Promise<void>>();

  constructor(private readonly publish: (run: Run) => Promise<void>) {}

  announce(run: Run): void {
    const key = runKey(run);
    const sent: Promise<void> = this.publish(run)
      .catch(() => {})
      .finally(() => {
        if (this.publishing.get(key) === sent) this.publishing.delete(key);
      });
    this.publishing.set(key, sent);
  }

  async sent(run: Run): Promise<void> {
    await this.publishing.get(runKey(run));
  }
}

const runKey = (run: { organization_id: number; workflow_id: number; id: number }) =>
  `${run.organization_id}/${run.workflow_id}/${run.id}`;

/** This task's calls' `call.started` events (announced at the answer, waited for by the ending). */
export const callStartedEvents = new CallStartedEvents<RunRecord>((run) => emitCallStarted(run));
