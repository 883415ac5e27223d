import { ConflictError, NotFoundError } from '../domain/errors.ts';
import { pageInfo, pageOffset } from '../domain/pagination.ts';
import { hasSession, SESSION_TOKEN_SECONDS, sessionExpiresAt, sessionUrl } from '../domain/browser-sessions.ts';
import { formatRunRef, type RunRef } from '../domain/run-ref.ts';
import { contactErasure } from '../domain/contact-erasure.ts';
import * as contactStore from '../repositories/campaign-contacts.ts';
import type { TransactItem } from '../repositories/table.ts';
import { requiredSetting } from '../config/settings.ts';
import { mintStreamToken } from '../telephony/stream-token.ts';
import { mergeFragments, parseTranscriptFile } from '../domain/transcripts.ts';
import { nextId } from '../repositories/counters.ts';
import {
  deleteRunFiles,
  listRunFiles,
  readRunFileText,
  runFileExists,
  runFileKeys,
} from '../repositories/run-files.ts';
import { deleteRunPartition, listRunLogs } from '../repositories/run-logs.ts';
import { listRunSms } from '../repositories/run-sms.ts';
import { smsView } from './run-texts.ts';
import type { RunRecord } from '../domain/run.ts';
import type { RunTest } from '../domain/agent-tests.ts';
import { getRun, listRuns } from '../repositories/runs-read.ts';
import { deleteRun, insertRun } from '../repositories/runs-lifecycle.ts';
import { forgetTextLine } from '../repositories/text-lines.ts';
import type { ListConversationsQuery } from '../schemas/runs.ts';
import { deleteDeliveriesOfRun } from '../repositories/webhooks.ts';
import { getAgent } from './agents.ts';
import { runDefinitionId } from './definitions.ts';
import { createDownloadLink } from './download-links.ts';
import { newRun } from './new-run.ts';

/** Links in a fetched run live one hour (the spec's `download_urls_expire_at`). */
export const RUN_LINK_SECONDS = 3600;
const WAV = 'audio/wav';
const TEXT = 'text/plain; charset=utf-8';

export async function findRun(
  orgId: number,
  agentRef: string,
  runId: number,
): Promise<{ run: RunRecord; ref: RunRef }> {
  const agent = await getAgent(orgId, agentRef);
  const run = await getRun(orgId, agent.id, runId);
  if (!run) throw new NotFoundError('Conversation not found');
  return { run, ref: { organizationId: orgId, agentId: agent.id, runId } };
}

const listItem = (run: RunRecord) => ({
  id: run.id,
  workflow_id: run.workflow_id,
  name: run.name,
  mode: run.mode,
  status: run.status,
  phone_number: run.phone_number,
  created_at: run.created_at,
  ended_at: run.ended_at,
  definition_id: run.definition_id,
  duration_seconds: run.duration_seconds,
  initial_context: run.initial_context,
  gathered_context: run.gathered_context,
});

export async function createConversation(
  orgId: number,
  agentRef: string,
  request: {
    mode: string;
    name?: string;
    initial_context: Record<string, unknown>;
    definition_id?: number;
    /** A conversation an agent test runs (services/agent-test-runner.ts), never a customer's request. */
    test?: RunTest;
  },
) {
  const agent = await getAgent(orgId, agentRef);
  const [runId, definitionId] = await Promise.all([
    nextId('run'),
    runDefinitionId(orgId, agent, request.definition_id),
  ]);
  const createdAt = new Date().toISOString();
  const started = newRun(orgId, agent, {
    id: runId,
    definitionId,
    name: request.name ?? `${request.mode} ${createdAt}`,
    mode: request.mode,
    status: 'created',
    phone_number: null,
    from_number: null,
    created_at: createdAt,
    logs: [],
    campaign: null,
    initialContext: request.initial_context,
  });
  const run: RunRecord = request.test ? { ...started, test: request.test } : started;
  // Not dialed: it takes a channel only once its session connects (runs-lifecycle.ts startSession).
  await insertRun(run, false);
  return {
    id: run.id,
    workflow_id: run.workflow_id,
    name: run.name,
    mode: run.mode,
    created_at: run.created_at,
    definition_id: run.definition_id,
    initial_context: run.initial_context,
    session: hasSession(run.mode)
      ? await sessionAccess({ organizationId: orgId, agentId: agent.id, runId: run.id }, run.created_at)
      : null,
  };
}

/**
 * Where and how the browser connects the run's session: the URL and a one-use credential bound to
 * the run, minted as of the run's creation so that it expires when the run's index says
 * (sessionExpiresAt: the sweeper ends a session never connected by then).
 */
async function sessionAccess(ref: RunRef, createdAt: string) {
  const runRef = formatRunRef(ref);
  return {
    url: sessionUrl(requiredSetting('MEDIA_STREAM_URL')),
    run_ref: runRef,
    token: await mintStreamToken(runRef, SESSION_TOKEN_SECONDS, Date.parse(createdAt)),
    expires_at: sessionExpiresAt(createdAt),
  };
}

export async function listConversations(orgId: number, agentRef: string, query: ListConversationsQuery) {
  const agent = await getAgent(orgId, agentRef);
  const { page, limit, status, disposition, created_from, created_to, search } = query;
  const { items, totalCount } = await listRuns(orgId, agent.id, pageOffset({ page, limit }), limit, {
    status,
    disposition,
    createdFrom: created_from,
    createdTo: created_to,
    search,
  });
  return { items: items.map(listItem), ...pageInfo({ page, limit }, totalCount) };
}

/** A link to a stored file of the run, or null when there is none (in progress, unanswered, or removed by retention). */
async function fileLink(baseUrl: string, key: string | null, contentType: string, seconds: number) {
  if (!key || !(await runFileExists(key))) return null;
  return createDownloadLink(baseUrl, key, contentType, seconds);
}

export async function getConversation(orgId: number, agentRef: string, runId: number, baseUrl: string) {
  const { run, ref } = await findRun(orgId, agentRef, runId);
  const [recording, transcript, logs, sms] = await Promise.all([
    fileLink(baseUrl, run.recording_key, WAV, RUN_LINK_SECONDS),
    fileLink(baseUrl, run.transcript_key, TEXT, RUN_LINK_SECONDS),
    listRunLogs(ref, run.logs),
    run.sms_count ? listRunSms(ref) : [],
  ]);
  return {
    ...listItem(run),
    recording_url: run.recording_key,
    transcript_url: run.transcript_key,
    recording_download_url: recording?.url ?? null,
    transcript_download_url: transcript?.url ?? null,
    download_urls_expire_at: (recording ?? transcript)?.expiresAt ?? null,
    logs,
    sms: sms.map(smsView),
    cost: run.cost,
    analysis: run.analysis ?? null,
    answered_at: run.answered_at ?? null,
    latency: run.latency ?? null,
    flow: run.flow ?? null,
  };
}

function savedFileKey(run: RunRecord, key: string | null, what: string): string {
  if (run.status === 'in_progress') throw new NotFoundError(`The ${what} is not saved yet: the call is in progress`);
  if (!key) throw new NotFoundError(`This conversation has no ${what}`);
  return key;
}

export async function getTranscript(orgId: number, agentRef: string, runId: number, baseUrl: string) {
  const { run } = await findRun(orgId, agentRef, runId);
  const key = savedFileKey(run, run.transcript_key, 'transcript');
  const content = await readRunFileText(key);
  if (content === undefined) throw new NotFoundError('The transcript no longer exists (retention)');
  const link = await createDownloadLink(baseUrl, key, TEXT, RUN_LINK_SECONDS);
  return {
    run_id: run.id,
    segments: mergeFragments(parseTranscriptFile(content)),
    download_url: link.url,
    expires_at: link.expiresAt,
  };
}

export async function getRecording(orgId: number, agentRef: string, runId: number, expiresIn: number, baseUrl: string) {
  const { run } = await findRun(orgId, agentRef, runId);
  const key = savedFileKey(run, run.recording_key, 'recording');
  const link = await fileLink(baseUrl, key, WAV, expiresIn);
  if (!link) throw new NotFoundError('The recording no longer exists (retention)');
  return { download_url: link.url, content_type: WAV, expires_at: link.expiresAt };
}

/** A campaign records a call's outcome within moments of its end (the event outbox). */
const OUTCOME_PENDING_RETRY_SECONDS = 5;
/** Times the deletion reads the campaign contact again after a call outcome or an analysis changed it meanwhile. */
const CONTACT_ERASURE_ATTEMPTS = 5;

/**
 * The transaction item erasing the run's content from its campaign contact (none for a run not
 * placed by a campaign, or when the contact holds nothing of it); ConflictError while the campaign
 * has not recorded the call's outcome yet (it would write the disposition after the erasure).
 */
async function contactErasureItems(run: RunRecord): Promise<TransactItem[]> {
  const origin = run.campaign;
  if (!origin) return [];
  const contact = await contactStore.getContact(run.organization_id, origin.campaign_id, origin.row);
  if (!contact) return [];
  const erasure = contactErasure(
    {
      status: contact.status,
      attempts: contact.attempts,
      run_id: contact.run_id,
      analysis_run_id: contact.analysis?.run_id ?? null,
    },
    { id: run.id, attempt: origin.attempt },
  );
  if (erasure.kind === 'outcome_pending')
    throw new ConflictError(
      "The campaign is still recording this call's outcome; delete it in a moment",
      OUTCOME_PENDING_RETRY_SECONDS,
    );
  if (erasure.kind === 'nothing') return [];
  return [
    contactStore.contactErasureItem(run.organization_id, origin.campaign_id, contact, {
      runId: run.id,
      disposition: erasure.disposition,
      analysis: erasure.analysis,
      at: new Date().toISOString(),
    }),
  ];
}

/**
 * Deletes a run for good, every copy of what the call said or gathered (docs/data-model.md,
 * "Erasure"): its files first (everything under the run's folder, so issued links die with them),
 * then its webhook delivery records, its caller's text line and its log lines, then, in one transaction, the run item, its
 * Idempotency-Key record and its campaign contact's disposition and analysis, then the deliveries
 * again (a delivery is created only while its run exists); its billing record stays. Each step can be repeated: a failure part-way leaves the run in place, so the request can
 * be repeated and finishes the erasure.
 */
export async function deleteConversation(orgId: number, agentRef: string, runId: number): Promise<void> {
  const { run, ref } = await findRun(orgId, agentRef, runId);
  if (run.status === 'in_progress') throw new ConflictError('The call is in progress; delete it after it ends');
  // Refused before anything is deleted while the campaign still records the call's outcome.
  let contactItems = await contactErasureItems(run);
  const keys = runFileKeys(ref);
  const named = [run.recording_key, run.transcript_key].filter((key): key is string => Boolean(key));
  await deleteRunFiles(named);
  for await (const page of listRunFiles(keys.folder)) await deleteRunFiles(page);
  await deleteDeliveriesOfRun(ref);
  // The caller's texts no longer find this call (the line names their number).
  if (run.phone_number) await forgetTextLine(ref, run.phone_number);
  await deleteRunPartition(ref);
  for (let attempt = 1; ; attempt += 1) {
    const result = await deleteRun(run, contactItems);
    if (result === 'deleted') {
      // A fan-out that ran between the first pass and the run's deletion made a delivery; none can now.
      await deleteDeliveriesOfRun(ref);
      return;
    }
    if (result === 'in_progress') throw new ConflictError('The call is in progress; delete it after it ends');
    if (attempt >= CONTACT_ERASURE_ATTEMPTS)
      throw new ConflictError('The campaign contact of this call keeps changing; try again in a moment');
    contactItems = await contactErasureItems(run);
  }
}
