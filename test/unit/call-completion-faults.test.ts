import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { ExecutionAlreadyExists, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { DynamoDBDocumentClient, GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';

// Fault paths only: the happy paths run against DynamoDB Local in the integration tests.
const dynamo = mockClient(DynamoDBDocumentClient);
const events = mockClient(EventBridgeClient);
const sfn = mockClient(SFNClient);

beforeAll(() => {
  Object.assign(process.env, {
    TABLE_NAME: 'test-table',
    AWS_REGION: 'us-east-1',
    CALL_LIFECYCLE_STATE_MACHINE_ARN: 'arn:aws:states:us-east-1:1:stateMachine:x',
  });
});

afterEach(() => {
  dynamo.reset();
  events.reset();
  sfn.reset();
});

const ref = { organizationId: 1, agentId: 2, runId: 3 };
const inProgressRun = {
  pk: 'ORG#1#AGENT#000000000002',
  sk: 'RUN#000000000003',
  id: 3,
  organization_id: 1,
  workflow_id: 2,
  status: 'in_progress',
  created_at: '2026-11-23T10:00:00.000Z',
  answered_at: '2026-11-23T10:00:02.000Z',
  initial_context: {},
  gathered_context: {},
  logs: [],
};

const cancelled = (code: string) =>
  new TransactionCanceledException({
    message: 'cancelled',
    $metadata: {},
    CancellationReasons: [{ Code: code }, { Code: 'None' }, { Code: 'None' }],
  });

describe('completeCall fault paths', () => {
  it('changes nothing and publishes nothing when another report ended the run first', async () => {
    const { completeCall } = await import('../../shared/services/call-completion.ts');
    dynamo.on(GetCommand).resolves({ Item: inProgressRun });
    dynamo.on(TransactWriteCommand).rejects(cancelled('ConditionalCheckFailed'));
    expect(await completeCall({ ref, outcome: 'completed', endedAt: '2026-11-23T10:00:12.000Z' })).toBe(false);
    expect(events.commandCalls(PutEventsCommand)).toHaveLength(0);
  });

  it('retries a transaction that lost a conflict on the channel counter, then publishes once', async () => {
    const { completeCall } = await import('../../shared/services/call-completion.ts');
    dynamo.on(GetCommand).resolves({ Item: inProgressRun });
    dynamo.on(TransactWriteCommand).rejectsOnce(cancelled('TransactionConflict')).resolves({});
    events.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'e-1' }] });
    expect(await completeCall({ ref, outcome: 'completed', endedAt: '2026-11-23T10:00:12.000Z' })).toBe(true);
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(2);
    // The outbox entry is cleared only after the event is on the bus.
    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(1);
    const [put] = events.commandCalls(PutEventsCommand);
    const detail = JSON.parse(put!.args[0].input.Entries![0]!.Detail!);
    expect(detail).toMatchObject({
      type: 'call.completed',
      data: { workflow_run_id: 3, status: 'completed', duration_seconds: 10, call_disposition: 'completed' },
    });
  });

  it('leaves the outbox entry when EventBridge rejects the event, so it is sent again later', async () => {
    const { completeCall } = await import('../../shared/services/call-completion.ts');
    dynamo.on(GetCommand).resolves({ Item: inProgressRun });
    dynamo.on(TransactWriteCommand).resolves({});
    events
      .on(PutEventsCommand)
      .resolves({ FailedEntryCount: 1, Entries: [{ ErrorCode: 'InternalFailure', ErrorMessage: 'boom' }] });
    await expect(completeCall({ ref, outcome: 'busy', endedAt: '2026-11-23T10:00:12.000Z' })).rejects.toThrow(
      /not accepted: boom/,
    );
    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it('ignores a report about a run that is gone or already ended', async () => {
    const { completeCall } = await import('../../shared/services/call-completion.ts');
    dynamo.on(GetCommand).resolves({ Item: { ...inProgressRun, status: 'completed' } });
    expect(await completeCall({ ref, outcome: 'failed', endedAt: '2026-11-23T10:00:12.000Z' })).toBe(false);
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });
});

describe('startNamedExecution', () => {
  it('treats an execution that already exists as started (a retried start runs the work once)', async () => {
    const { startNamedExecution } = await import('../../shared/workflows/executions.ts');
    sfn.on(StartExecutionCommand).rejects(new ExecutionAlreadyExists({ message: 'exists', $metadata: {} }));
    await expect(startNamedExecution('CALL_LIFECYCLE_STATE_MACHINE_ARN', 'call-1-3', {})).resolves.toBeUndefined();
  });

  it('propagates other failures', async () => {
    const { startNamedExecution } = await import('../../shared/workflows/executions.ts');
    sfn.on(StartExecutionCommand).rejects(new Error('throttled'));
    await expect(startNamedExecution('CALL_LIFECYCLE_STATE_MACHINE_ARN', 'call-1-4', {})).rejects.toThrow('throttled');
  });
});
