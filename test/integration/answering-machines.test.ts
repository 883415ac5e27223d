import { describe, expect, inject, it } from 'vitest';
import { apiClient, newOrganization, needsLocalStack } from '../support/api.ts';
import { describeAnsweringMachines } from '../support/answering-machines.ts';

/** Answering machines through the local Twilio (the local Telnyx: answering-machines-telnyx.test.ts). */
describeAnsweringMachines('twilio');

const api = apiClient();

describe.skipIf(needsLocalStack)('the verdict and the ending, on the table', () => {
  /** A run in progress of a new organization, as a placed call that was answered. */
  async function answeredRun() {
    Object.assign(process.env, inject('stackEnv'));
    const runs = {
      ...(await import('../../shared/repositories/runs-read.ts')),
      ...(await import('../../shared/repositories/runs-lifecycle.ts')),
    };
    const { nextId } = await import('../../shared/repositories/counters.ts');
    const { newRun } = await import('../../shared/services/new-run.ts');
    const org = await newOrganization('AMD race');
    const { body: agent } = await api.request('POST', '/agents', { key: org.key, body: { name: 'Racer' } });
    const id = await nextId('run');
    const now = new Date().toISOString();
    const run = {
      ...newRun(org.organizationId, agent, {
        id,
        name: 'Race',
        mode: 'phone',
        status: 'in_progress',
        phone_number: '+48601234569',
        from_number: null,
        created_at: now,
        logs: [],
        campaign: null,
        initialContext: {},
      }),
      answered_at: now,
    };
    expect(await runs.insertRun(run, true)).toBe(true);
    return { runs, run, ref: { organizationId: org.organizationId, agentId: agent.id, runId: id } };
  }
  const log = { timestamp: new Date().toISOString(), level: 'INFO', message: 'Answering-machine detection: test' };

  it('an ending holding the run as it was before the verdict still reads the verdict (voicemail)', async () => {
    const { runs, run, ref } = await answeredRun();
    const { completeCall } = await import('../../shared/services/call-completion.ts');
    expect(await runs.recordMachineVerdict(ref, 'machine', log)).toMatchObject({ answered_by: 'machine' });
    // A second verdict (Telnyx's greeting end, a retried webhook) changes nothing.
    expect(await runs.recordMachineVerdict(ref, 'human', log)).toBeUndefined();
    // The media service ends the call with the run it had from the stream's admission (no verdict).
    expect(await completeCall({ ref, outcome: 'completed', endedAt: new Date().toISOString() }, run)).toBe(true);
    const ended = await runs.getRun(ref.organizationId, ref.agentId, ref.runId);
    expect(ended).toMatchObject({ status: 'voicemail', answered_by: 'machine' });
    expect(ended!.gathered_context.call_disposition).toBe('voicemail');
  });

  it('a verdict after the ending changes nothing', async () => {
    const { runs, run, ref } = await answeredRun();
    const { completeCall } = await import('../../shared/services/call-completion.ts');
    expect(await completeCall({ ref, outcome: 'completed', endedAt: new Date().toISOString() }, run)).toBe(true);
    expect(await runs.recordMachineVerdict(ref, 'machine', log)).toBeUndefined();
    expect(await runs.getRun(ref.organizationId, ref.agentId, ref.runId)).toMatchObject({ status: 'completed' });
  });

  it('a verdict and an ending at the same moment: one outcome, the one the rule gives for the order the table saw', async () => {
    const { runs, run, ref } = await answeredRun();
    const { completeCall } = await import('../../shared/services/call-completion.ts');
    const [recorded, completed] = await Promise.all([
      runs.recordMachineVerdict(ref, 'machine', log),
      completeCall({ ref, outcome: 'completed', endedAt: new Date().toISOString() }, run),
    ]);
    expect(completed).toBe(true);
    const ended = await runs.getRun(ref.organizationId, ref.agentId, ref.runId);
    // Recorded first: the ending read it; otherwise the ending came first and the verdict was refused.
    expect(ended!.status).toBe(recorded ? 'voicemail' : 'completed');
  });
});
