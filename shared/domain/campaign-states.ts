import { ConflictError } from './errors.ts';

/**
 * Campaign states: `importing` (a large source's contacts are being stored in the background; then
 * `draft`, or `scheduled` with a start time), `import_failed` (its stored source could not be
 * read: nothing can run; create the campaign again), `draft` (created, not started), `scheduled` (starts
 * itself at `scheduled_start_at`), `running`, `paused`, `completed` (every contact final), `cancelled`.
 */
export const CAMPAIGN_STATES = [
  'importing',
  'import_failed',
  'draft',
  'scheduled',
  'running',
  'paused',
  'completed',
  'cancelled',
] as const;
export type CampaignState = (typeof CAMPAIGN_STATES)[number];

export type CampaignAction = 'start' | 'pause' | 'resume' | 'cancel';

/** The transition table (README and OpenAPI show the same): action → from-states → to-state. */
export const CAMPAIGN_TRANSITIONS: Record<CampaignAction, { from: readonly CampaignState[]; to: CampaignState }> = {
  start: { from: ['draft', 'scheduled'], to: 'running' },
  pause: { from: ['running', 'scheduled'], to: 'paused' },
  resume: { from: ['paused'], to: 'running' },
  cancel: { from: ['importing', 'draft', 'scheduled', 'running', 'paused'], to: 'cancelled' },
};

/** The state after `action`, or a 409 naming the allowed states. */
export function nextCampaignState(current: CampaignState, action: CampaignAction): CampaignState {
  const transition = CAMPAIGN_TRANSITIONS[action];
  if (!transition.from.includes(current)) {
    throw new ConflictError(
      `Cannot ${action} a campaign that is ${current}; allowed from: ${transition.from.join(', ')}`,
    );
  }
  return transition.to;
}
