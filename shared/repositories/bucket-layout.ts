/**
 * The media bucket's top-level prefixes that its lifecycle rules name (infra/constructs/data.ts),
 * apart from the S3 client so the CDK app reads them without loading it.
 */

/** Every run's files (recording, transcript, transfer message): retention expires this prefix only. */
export const RUN_FILES_PREFIX = 'runs/';

/** Large campaign reports, served by a link that lives an hour. */
export const CAMPAIGN_REPORTS_PREFIX = 'reports/';

/** Days a stored campaign report stays: a copy of call results must not outlive their erasure for long. */
export const CAMPAIGN_REPORT_DAYS = 1;

/** A regulated number's identity documents, encrypted (a data key per file, wrapped by the secret box). */
export const NUMBER_DOCUMENTS_PREFIX = 'number-documents/';
