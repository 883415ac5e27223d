/**
 * A campaign and its contacts as stored and as the services read them (the repositories
 * campaigns.ts and campaign-contacts.ts store them; the API's views are built from them).
 */
import type { CampaignState } from './campaign-states.ts';
import type { CampaignWindowSetting, RetryPolicy } from './campaign-scheduling.ts';

export interface CampaignRecord {
  id: number;
  organization_id: number;
  name: string;
  goal: string | null;
  workflow_id: number;
  state: CampaignState;
  source_type: string;
  source_id: string;
  source_config: Record<string, unknown> | null;
  source_refresh_minutes: number | null;
  source_last_synced_at: string | null;
  source_sync_error: string | null;
  retry_config: RetryPolicy | null;
  calling_window: CampaignWindowSetting | null;
  scheduled_start_at: string | null;
  total_rows: number;
  processed_rows: number;
  failed_rows: number;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  /**
   * The agent's definition version when the campaign first started: every call of the campaign
   * runs it, whatever is published meanwhile. Absent before the first start (and on campaigns
   * started before versions were pinned: their calls run the current version).
   */
  definition_id?: number;
  /** Bumped on every start/resume: an engine execution of an older generation stops itself. */
  generation: number;
  /** While `importing`: the S3 object holding the contacts, and how many of them are stored. */
  import_key?: string;
  imported_rows?: number;
  /** Why the background import failed (`import_failed`). */
  import_error?: string;
}

export type ContactStatus =
  | 'pending'
  | 'dialing'
  | 'retry_scheduled'
  | 'completed'
  | 'busy'
  | 'no_answer'
  | 'voicemail'
  | 'failed'
  | 'do_not_call'
  | 'invalid';

export interface ContactRecord {
  row: number;
  phone_number: string;
  e164: string | null;
  first_name: string;
  last_name: string;
  timezone: string | null;
  status: ContactStatus;
  attempts: number;
  last_outcome: string | null;
  call_disposition: string | null;
  run_id: number | null;
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  error: string | null;
  /** The post-call analysis of a run of this contact; the report shows it while `run_id` is that run. */
  analysis?: ContactAnalysis | null;
  /** Set when the run `run_id` named was erased (domain/contact-erasure.ts): its content is gone. */
  erased_run_id?: number;
  erased_at?: string;
}

export interface ContactAnalysis {
  run_id: number;
  summary: string | null;
  successful: boolean | null;
  structured_data: Record<string, unknown> | null;
}
