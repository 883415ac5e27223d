/**
 * What erasing a finished campaign call takes from its contact. The contact keeps what the
 * campaign's counts, retries and billing need (status, attempts, `last_outcome`, `run_id`, the
 * attempt times, the platform's own `error`); it loses what the call produced: the disposition the
 * agent chose (part of the run's `gathered_context`) and the post-call analysis (summary, success
 * evaluation, structured data). No count reads the disposition: `last_outcome` carries the outcome.
 */

/** The parts of a contact the decision reads. */
export interface ContactCallState {
  status: string;
  attempts: number;
  run_id: number | null;
  /** The run the stored post-call analysis belongs to, if there is one. */
  analysis_run_id: number | null;
}

export type ContactErasure =
  /** The campaign has not recorded the call's outcome yet (the contact is still dialing it): erase later. */
  | { kind: 'outcome_pending' }
  /** The contact holds nothing of the run (it has moved on to a later call). */
  | { kind: 'nothing' }
  /**
   * `disposition`: the contact's latest call is the run (its disposition goes and the contact is
   * marked erased for it); `analysis`: its stored analysis is the run's.
   */
  | { kind: 'erase'; disposition: boolean; analysis: boolean };

export function contactErasure(contact: ContactCallState, run: { id: number; attempt: number }): ContactErasure {
  if (contact.status === 'dialing' && contact.attempts === run.attempt) return { kind: 'outcome_pending' };
  const disposition = contact.run_id === run.id;
  const analysis = contact.analysis_run_id === run.id;
  return disposition || analysis ? { kind: 'erase', disposition, analysis } : { kind: 'nothing' };
}
