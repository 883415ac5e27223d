/** A run's transfer to a person: started once, then what happened to it (services/call-transfer.ts). */
import { updateRunReturning, updateRunWithLog } from './runs-lifecycle.ts';
import type { RunLogLine, RunRecord, TransferState } from '../domain/run.ts';
import type { RunRef } from '../domain/run-ref.ts';

/** A transfer starts; false when the run is not in progress, or is being transferred already. */
export async function beginTransfer(ref: RunRef, transfer: TransferState, log: RunLogLine): Promise<boolean> {
  return updateRunWithLog(
    ref,
    {
      UpdateExpression: 'SET transfer = :transfer',
      ConditionExpression: '#status = :inProgress AND (attribute_not_exists(transfer) OR transfer = :null)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':transfer': transfer, ':inProgress': 'in_progress', ':null': null },
    },
    log,
  );
}

/**
 * Notes what happened to a transfer in progress (only the given fields change); the run as it is
 * then, or undefined when it has ended (or has no transfer).
 */
export async function noteTransfer(
  ref: RunRef,
  changes: Partial<TransferState>,
  log?: RunLogLine,
): Promise<RunRecord | undefined> {
  const fields = Object.entries(changes);
  return updateRunReturning(
    ref,
    {
      UpdateExpression: `SET ${fields.map((_, i) => `transfer.#f${i} = :v${i}`).join(', ')}`,
      ConditionExpression: '#status = :inProgress AND attribute_type(transfer, :map)',
      ExpressionAttributeNames: {
        '#status': 'status',
        ...Object.fromEntries(fields.map(([field], i) => [`#f${i}`, field])),
      },
      ExpressionAttributeValues: {
        ...Object.fromEntries(fields.map(([, value], i) => [`:v${i}`, value])),
        ':inProgress': 'in_progress',
        ':map': 'M',
      },
    },
    log,
  );
}
