import { analysisPlanWithGoal } from '../domain/call-analysis.ts';
import type { RunRecord } from '../domain/run.ts';
import type { Agent } from '../schemas/agents.ts';

/**
 * A run as it starts: everything a call or conversation gathers later is empty, and the initial
 * context is the request's merged over the agent's default variables.
 */
export function newRun(
  orgId: number,
  agent: Agent,
  start: Pick<
    RunRecord,
    'id' | 'name' | 'mode' | 'status' | 'phone_number' | 'from_number' | 'created_at' | 'logs' | 'campaign'
  > & {
    initialContext: Record<string, unknown>;
    /** The version it executes when not the agent's current one (a draft being tried). */
    definitionId?: number;
  },
): RunRecord {
  const { initialContext, definitionId, ...fields } = start;
  return {
    ...fields,
    organization_id: orgId,
    workflow_id: agent.id,
    ended_at: null,
    definition_id: definitionId ?? agent.current_definition_id,
    duration_seconds: null,
    initial_context: { ...agent.template_context_variables, ...initialContext },
    gathered_context: {},
    recording_key: null,
    transcript_key: null,
    sms: [],
    cost: null,
    provider_call_id: null,
    answered_at: null,
    // What the call does on an answering machine is the agent's choice when it was placed.
    voicemail_message: agent.voicemail_message ?? null,
    // So is its post-call analysis (a campaign's goal judged with the agent's own criteria).
    analysis_plan: analysisPlanWithGoal(agent.workflow_configurations.analysis ?? null, fields.campaign?.goal),
    analysis: null,
  };
}
