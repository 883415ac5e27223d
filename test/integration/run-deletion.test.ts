import { DescribeExecutionCommand, SFNClient } from '@aws-sdk/client-sfn';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { apiClient, needsLocalStack, newOrganization, type TestOrganization } from '../support/api.ts';
import { daytimeNumber } from '../support/phone-numbers.ts';
import { eventually } from '../support/webhook-receiver.ts';

/** Deleting a run leaves none of its personal data outside billing. */
const api = apiClient();
let org: TestOrganization;
let agent: { id: number; public_id: string };

beforeAll(async () => {
  org = await newOrganization('Run deletion', 3);
  agent = (await api.request('POST', '/agents', { key: org.key, body: { name: 'Forgetful' } })).body;
});

async function stored() {
  const env = inject('stackEnv');
  Object.assign(process.env, env);
  const [{ db, tableName }, { keys, CALLS_IDEMPOTENCY_SCOPE }, runs, { GetCommand }] = await Promise.all([
    import('../../shared/repositories/table.ts'),
    import('../../shared/repositories/keys.ts'),
    import('../../shared/repositories/runs-read.ts'),
    import('@aws-sdk/lib-dynamodb'),
  ]);
  const idempotencyRecord = async (sk: string) =>
    (
      await db().send(
        new GetCommand({ TableName: tableName(), Key: { pk: keys.idempotencyPartition(CALLS_IDEMPOTENCY_SCOPE), sk } }),
      )
    ).Item;
  const executionInput = async (runId: number) => {
    const sfn = new SFNClient({ endpoint: env.AWS_ENDPOINT_URL_SFN, region: env.AWS_REGION });
    const arn = `${env.CALL_LIFECYCLE_STATE_MACHINE_ARN!.replace(':stateMachine:', ':execution:')}:call-${org.organizationId}-${runId}`;
    return (await sfn.send(new DescribeExecutionCommand({ executionArn: arn }))).input ?? '';
  };
  return { runs, idempotencyRecord, executionInput };
}

describe.skipIf(needsLocalStack)('deleting a run', () => {
  it('removes the Idempotency-Key record, and the call execution never carried the number', async () => {
    const { runs, idempotencyRecord, executionInput } = await stored();
    const number = daytimeNumber(7, 5); // busy: ends at once, without audio
    const placed = await api.request('POST', `/agents/${agent.public_id}/calls`, {
      key: org.key,
      headers: { 'Idempotency-Key': `delete-me-${Date.now()}` },
      body: { phone_number: number, initial_context: { name: 'Anna' } },
    });
    expect(placed.status).toBe(200);
    const runId = placed.body.workflow_run_id as number;
    await eventually(async () => {
      const run = await api.request('GET', `/agents/${agent.public_id}/conversations/${runId}`, { key: org.key });
      return run.body.status !== 'in_progress' ? run.body : undefined;
    });

    // Execution inputs outlive the run: they carry references only.
    const input = await executionInput(runId);
    expect(JSON.parse(input)).toEqual({
      call: {
        ref: { organizationId: org.organizationId, agentId: agent.id, runId },
        runRef: expect.any(String),
        watchdogSeconds: expect.any(Number),
      },
    });
    expect(input).not.toContain(number.slice(1));

    const run = (await runs.getRun(org.organizationId, agent.id, runId))!;
    expect(run.idempotency_record).toMatch(/^calls#/);
    expect(JSON.stringify(await idempotencyRecord(run.idempotency_record!))).toContain(number);

    expect(
      (await api.request('DELETE', `/agents/${agent.public_id}/conversations/${runId}`, { key: org.key })).status,
    ).toBe(204);
    expect(await runs.getRun(org.organizationId, agent.id, runId)).toBeUndefined();
    expect(await idempotencyRecord(run.idempotency_record!)).toBeUndefined();
  });

  it("deletes the run's log lines, items of their own", async () => {
    Object.assign(process.env, inject('stackEnv'));
    const { listRunLogs } = await import('../../shared/repositories/run-logs.ts');
    const placed = await api.request('POST', `/agents/${agent.public_id}/calls`, {
      key: org.key,
      body: { phone_number: daytimeNumber(9, 5), initial_context: {} },
    });
    const runId = placed.body.workflow_run_id as number;
    const ended = await eventually(async () => {
      const run = await api.request('GET', `/agents/${agent.public_id}/conversations/${runId}`, { key: org.key });
      return run.body.status !== 'in_progress' ? run.body : undefined;
    });
    const ref = { organizationId: org.organizationId, agentId: agent.id, runId };
    const stored = await listRunLogs(ref);
    expect(stored.length).toBeGreaterThanOrEqual(2);
    expect(stored).toEqual(ended.logs);
    expect(
      (await api.request('DELETE', `/agents/${agent.public_id}/conversations/${runId}`, { key: org.key })).status,
    ).toBe(204);
    expect(await listRunLogs(ref)).toEqual([]);
  });

  it('deletes a run placed without a key as before', async () => {
    const placed = await api.request('POST', `/agents/${agent.public_id}/calls`, {
      key: org.key,
      body: { phone_number: daytimeNumber(8, 5), initial_context: {} },
    });
    const runId = placed.body.workflow_run_id as number;
    await eventually(async () => {
      const run = await api.request('GET', `/agents/${agent.public_id}/conversations/${runId}`, { key: org.key });
      return run.body.status !== 'in_progress' ? run.body : undefined;
    });
    expect(
      (await api.request('DELETE', `/agents/${agent.public_id}/conversations/${runId}`, { key: org.key })).status,
    ).toBe(204);
  });
});
