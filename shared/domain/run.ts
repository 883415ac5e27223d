import type { RunTest } from './agent-tests.ts';
/**
 * A run (a call or a conversation) as the platform keeps it: its record, its states and what its
 * transfer, campaign origin and billing record hold. The repositories (repositories/runs-*.ts)
 * store it; the services build the API's shapes from it.
 */
import type { FlowPathStep } from './flows.ts';
import type { CallAnalysisPlan, RunAnalysis } from '../schemas/call-analysis.ts';
import type { CallLatency } from './call-latency.ts';
import type { RunSmsRecord } from './text-messages.ts';

/** A text message as the API and the webhooks show it (the provider's id of it stays inside). */
export type RunSmsView = Omit<RunSmsRecord, 'provider_message_id'>;

/**
 * Who answered an outbound call, as the provider's asynchronous answering-machine detection
 * reports it (Twilio `AnsweredBy`, Telnyx `call.machine.detection.ended`): fax machines count as
 * machines, and `unknown` is a call detection could not classify (treated like a person).
 */
export type MachineVerdict = 'human' | 'machine' | 'unknown';

export type RunStatus = 'created' | 'in_progress' | 'completed' | 'busy' | 'no_answer' | 'voicemail' | 'failed';

/** A run (call or conversation) as stored; the API shapes are built from it by the service. */
export interface RunRecord {
  id: number;
  organization_id: number;
  workflow_id: number;
  name: string;
  mode: string;
  status: RunStatus;
  phone_number: string | null;
  from_number: string | null;
  created_at: string;
  ended_at: string | null;
  definition_id: number;
  duration_seconds: number | null;
  initial_context: Record<string, unknown>;
  gathered_context: Record<string, unknown>;
  /** The path through the agent's conversation flow, set when the call ends; absent for a flat definition. */
  flow?: FlowPathStep[] | null;
  recording_key: string | null;
  transcript_key: string | null;
  /**
   * Given at creation: its lines are written as log items (run-logs.ts), never on the item. Read
   * back from an item: the lines a run written before log items kept on itself (run-logs reads both).
   */
  logs: RunLogLine[];
  /**
   * The run's text messages: stored as items of their own (repositories/run-sms.ts), never on the
   * run item; filled in where a run is shown or its `call.completed` sent.
   */
  sms: RunSmsView[];
  cost: {
    currency: 'USD';
    telephony_usd: number;
    platform_usd: number;
    sms_usd?: number;
    speech_to_speech_usd?: number;
    total_usd: number;
  } | null;
  provider_call_id: string | null;
  /** When the callee picked up and the media stream started; the duration counts from here. */
  answered_at: string | null;
  /** `host:port` of the media task holding the call while it is live (its listeners and control commands go there). */
  media_host?: string | null;
  /** The provider's answering-machine verdict on an outbound call, once it came (the first one stays). */
  answered_by?: MachineVerdict | null;
  /** The agent's voicemail message when the call was placed (left on an answering machine); none: hang up on one. */
  voicemail_message?: string | null;
  /** The agent's post-call analysis plan when the run started; none: no analysis. */
  analysis_plan?: CallAnalysisPlan | null;
  /** The post-call analysis, from the run's end (pending) until the model answered (or failed). */
  analysis?: RunAnalysis | null;
  /**
   * When its `call.completed` was confirmed on the bus while its analysis was still pending: the
   * run then stays in the outbox index until the analysis is recorded, so an analysis whose
   * function failed every attempt is noticed (services/call-completion.ts).
   */
  event_published_at?: string | null;
  /** Each turn's latency, once the call's media stream ended (domain/call-latency.ts); none before. */
  latency?: CallLatency | null;
  /** A transfer to a person, from the agent's request until the run ends (services/call-transfer.ts). */
  transfer?: TransferState | null;
  /** How many texts the call sent (repositories/run-sms.ts); none: no text items to read. */
  sms_count?: number;
  /** A conversation an agent test runs: its tools answer from the test's mocks (domain/agent-tests.ts). */
  test?: RunTest | null;
  /** The campaign contact attempt that placed this call, if any. */
  campaign: CampaignOrigin | null;
  /** Sort key of the Idempotency-Key record holding this call's first response, if placed with a key. */
  idempotency_record?: string;
}

export type TransferOutcome = 'completed' | 'busy' | 'no_answer' | 'voicemail' | 'failed' | 'abandoned';

export interface TransferState {
  destination: string;
  address: string;
  mode: 'cold' | 'warm';
  requested_at: string;
  /** Warm: what the person answering hears first. */
  whisper: string | null;
  /** Said to the caller when the destination does not take the call (unless the agent takes it back). */
  failed_message: string;
  /** Not taken: the agent takes the call back on a new media stream of the run. */
  continue_on_failure?: boolean;
  /** When the agent's new stream started, after a transfer not taken. */
  resumed_at?: string;
  /** The transfer leg was answered (by a person; a machine sets `machine`). */
  answered_at?: string | null;
  machine?: boolean;
  outcome?: TransferOutcome;
  /** Seconds the transfer leg was up (answered to hang-up). */
  leg_seconds?: number;
  /** When the transferred call ended (the run ends then). */
  ended_at?: string;
  /** What the agent's part left, once saved: the run ends with it when the transfer's outcome is known. */
  handoff?: {
    recording_key: string | null;
    transcript_key: string;
    gathered_context: Record<string, unknown>;
    agent_ended_at: string;
    /** The agent's part's path through its flow: it ends at the transfer step (or where a supervisor transferred). */
    flow?: FlowPathStep[] | null;
    /** The agent's part's speech-to-speech model, priced (the realtime engine): a part of the run's cost. */
    speech_to_speech_usd?: number;
  };
}

export interface CampaignOrigin {
  campaign_id: number;
  row: number;
  attempt: number;
  /** The contact's own time zone, when its source gave one (its retry is scheduled in it). */
  timezone?: string | null;
  /**
   * The campaign's `goal` when the call was placed, if it has one: the agent reads it (the call
   * variable `campaign_goal`) and the post-call analysis judges success against it.
   */
  goal?: string | null;
}

/** What deciding a campaign call's outcome needs of its run. */
export type EndedCall = Pick<
  RunRecord,
  | 'id'
  | 'organization_id'
  | 'workflow_id'
  | 'status'
  | 'phone_number'
  | 'created_at'
  | 'ended_at'
  | 'gathered_context'
  | 'campaign'
  | 'analysis'
>;

/** What survives a run's deletion: the billing record. */
export interface UsageRecord {
  run_id: number;
  workflow_id: number;
  status: RunStatus;
  started_at: string;
  ended_at: string;
  duration_seconds: number;
  cost_usd: number;
  /** The texts the call sent, their segments and their cost (part of `cost_usd`); absent: none. */
  sms_messages?: number;
  sms_segments?: number;
  /** A test conversation's (an agent test run's): billed like a chat, listed with its test run. */
  test_run_id?: number;
  sms_usd?: number;
}

/** One line of a run's logs. */
export interface RunLogLine {
  timestamp: string;
  level: string;
  message: string;
}
