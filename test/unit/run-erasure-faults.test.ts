import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DeleteObjectsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import {
  DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  type GetCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';

// Fault paths of a campaign call's erasure; the whole erasure runs on the local stack in
// test/integration/call-erasure.test.ts.
const dynamo = mockClient(DynamoDBDocumentClient);
const s3 = mockClient(S3Client);

beforeAll(() => {
  Object.assign(process.env, { TABLE_NAME: 'test-table', BUCKET_NAME: 'test-bucket', AWS_REGION: 'us-east-1' });
});

afterEach(() => {
  dynamo.reset();
  s3.reset();
});

const agent = { pk: 'ORG#1', sk: 'AGENT#000000000002', id: 2, organization_id: 1, name: 'A', status: 'active' };
const run = {
  pk: 'ORG#1#AGENT#000000000002',
  sk: 'RUN#000000000003',
  id: 3,
  organization_id: 1,
  workflow_id: 2,
  status: 'completed',
  created_at: '2026-11-23T10:00:00.000Z',
  recording_key: 'runs/org-1/agent-2/run-3/recording.wav',
  transcript_key: 'runs/org-1/agent-2/run-3/transcript.txt',
  initial_context: {},
  gathered_context: { call_disposition: 'booked' },
  logs: [],
  campaign: { campaign_id: 4, row: 1, attempt: 1 },
};
const contact = (change: Record<string, unknown>) => ({
  pk: 'ORG#1#CAMPAIGN#000000000004',
  sk: 'CONTACT#000000000001',
  row: 1,
  status: 'completed',
  attempts: 1,
  run_id: 3,
  call_disposition: 'booked',
  ...change,
});

/** Items by sort key; the contact is read from `contacts` in turn (the last one stays). */
function table(contacts: Record<string, unknown>[]) {
  dynamo.on(GetCommand).callsFake((input: GetCommandInput) => {
    const sk = String(input.Key!.sk);
    if (sk.startsWith('AGENT#')) return { Item: agent };
    if (sk.startsWith('RUN#')) return { Item: run };
    return { Item: contacts.length > 1 ? contacts.shift() : contacts[0] };
  });
  dynamo.on(QueryCommand).resolves({ Items: [] });
  s3.on(ListObjectsV2Command).resolves({ Contents: [] });
  s3.on(DeleteObjectsCommand).resolves({});
}

const refusedContact = () =>
  new TransactionCanceledException({
    message: 'cancelled',
    $metadata: {},
    CancellationReasons: [{ Code: 'None' }, { Code: 'ConditionalCheckFailed' }],
  });

describe('erasing a campaign call: fault paths', () => {
  it('refuses (409) before deleting anything while the campaign has not recorded the outcome', async () => {
    const { deleteConversation } = await import('../../shared/services/conversations.ts');
    table([contact({ status: 'dialing', run_id: null, call_disposition: null })]);
    await expect(deleteConversation(1, '2', 3)).rejects.toMatchObject({ kind: 'conflict', retryAfterSeconds: 5 });
    expect(s3.commandCalls(DeleteObjectsCommand)).toHaveLength(0);
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  it('reads the contact again when its analysis was written between the read and the deletion', async () => {
    const { deleteConversation } = await import('../../shared/services/conversations.ts');
    const analysis = { run_id: 3, summary: 'Asked about hours', successful: true, structured_data: {} };
    table([contact({}), contact({ analysis })]);
    dynamo.on(TransactWriteCommand).rejectsOnce(refusedContact()).resolves({});
    await deleteConversation(1, '2', 3);
    const [first, second] = dynamo.commandCalls(TransactWriteCommand).map((call) => call.args[0].input.TransactItems!);
    expect(first![1]!.Update!.UpdateExpression).not.toContain('REMOVE analysis');
    expect(second![0]!.Delete!.Key).toEqual({ pk: run.pk, sk: run.sk });
    expect(second![1]!.Update).toMatchObject({
      UpdateExpression: 'SET call_disposition = :null, erased_run_id = :runId, erased_at = :at REMOVE analysis',
      ConditionExpression: expect.stringContaining('analysis.run_id = :analysisRun'),
    });
  });

  it('leaves a contact that has moved on to a later call untouched', async () => {
    const { deleteConversation } = await import('../../shared/services/conversations.ts');
    table([
      contact({
        attempts: 2,
        run_id: 9,
        analysis: { run_id: 9, summary: 'x', successful: null, structured_data: null },
      }),
    ]);
    dynamo.on(TransactWriteCommand).resolves({});
    await deleteConversation(1, '2', 3);
    const [items] = dynamo.commandCalls(TransactWriteCommand).map((call) => call.args[0].input.TransactItems!);
    expect(items).toHaveLength(1);
  });
});
