/**
 * The local providers' regulatory reviewers (Twilio's bundles, Telnyx's requirement groups): what
 * they decide is chosen by the submitted data, so tests see every outcome.
 *
 * - no identity document among the items: rejected, "An identity document is required";
 * - a submitted value (an attribute, a requirement's value) starting with `REJECT`: rejected,
 *   "The document <value> could not be verified against the issuing register";
 * - one starting with `HOLD`: left in review (the operator's override can only reject it);
 * - one starting with `SILENT`: approved, but the news of it is not sent (a callback lost on its
 *   way: the provider's status says approved, which the operator's override then applies);
 * - anything else: approved.
 *
 * A value starting with `QUICK` (Twilio's bundles) has its decision made at the submission, and
 * its callback delivered before the submission is answered: a review decided and announced
 * faster than the submitter recorded it, which the platform must not lose.
 *
 * A decision comes `reviewDelayMs` after the submission (the stack's option), as a real review
 * comes later than the request.
 */
export type LocalReviewVerdict =
  { status: 'approved'; silent: boolean } | { status: 'rejected'; reason: string } | { status: 'held' };

export function localReviewVerdict(submitted: { values: readonly string[]; hasDocument: boolean }): LocalReviewVerdict {
  if (!submitted.hasDocument) return { status: 'rejected', reason: 'An identity document is required' };
  const rejected = submitted.values.find((value) => /^reject/i.test(value));
  if (rejected)
    return {
      status: 'rejected',
      reason: `The document ${rejected} could not be verified against the issuing register`,
    };
  if (submitted.values.some((value) => /^hold/i.test(value))) return { status: 'held' };
  return { status: 'approved', silent: submitted.values.some((value) => /^silent/i.test(value)) };
}

/** Whether the submitted data asks for a decision at the submission itself (see above). */
export const decidedAtOnce = (values: readonly string[]) => values.some((value) => /^quick/i.test(value));

/** Default delay of a local review (npm start); the tests' stack makes it short. */
export const DEFAULT_REVIEW_DELAY_MS = 5_000;
