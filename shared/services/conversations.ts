import { ConflictError, NotFoundError } from '../domain/errors.ts';
import { pageInfo, pageOffset } from '../domain/pagination.ts';
import { hasSession, SESSION_TOKEN_SECONDS, sessionExpiresAt, sessionUrl } from '../domain/browser-sessions.ts';
import { formatRunRef, type RunRef } from '../domain/run-ref.ts';
import { requiredSetting } from '../config/settings.ts';
import { mintStreamToken } from '../telephony/stream-token.ts';
import { mergeFragments, parseTranscriptFile } from '../domain/transcripts.ts';
import { nextId } from '../repositories/counters.ts';
import { deleteRunFiles, readRunFileText, runFileExists, runFileKeys } from '../repositories/run-files.ts';
import { deleteRunLogs, listRunLogs } from '../repositories/run-logs.ts';
import type { RunRecord } from '../domain/run.ts';
import { getRun, listRuns } from '../repositories/runs-read.ts';
import { deleteRun, insertRun } from '../repositories/runs-lifecycle.ts';
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
  request: { mode: string; name?: string; initial_context: Record<string, unknown>; definition_id?: number },
) {
  const agent = await getAgent(orgId, agentRef);
  const [runId, definitionId] = await Promise.all([
    nextId('run'),
    runDefinitionId(orgId, agent, request.definition_id),
  ]);
  const createdAt = new Date().toISOString();
  const run = newRun(orgId, agent, {
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
  const [recording, transcript, logs] = await Promise.all([
    fileLink(baseUrl, run.recording_key, WAV, RUN_LINK_SECONDS),
    fileLink(baseUrl, run.transcript_key, TEXT, RUN_LINK_SECONDS),
    listRunLogs(ref, run.logs),
  ]);
  return {
    ...listItem(run),
    recording_url: run.recording_key,
    transcript_url: run.transcript_key,
    recording_download_url: recording?.url ?? null,
    transcript_download_url: transcript?.url ?? null,
    download_urls_expire_at: (recording ?? transcript)?.expiresAt ?? null,
    logs,
    sms: run.sms ?? [],
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

/**
 * Deletes a run for good: its files first (so issued links die with them), then its webhook
 * delivery records and its log lines, then the run item itself; its billing record stays. A failure part-way leaves
 * the run in place, so the request can be repeated.
 */
export async function deleteConversation(orgId: number, agentRef: string, runId: number): Promise<void> {
  const { run, ref } = await findRun(orgId, agentRef, runId);
  if (run.status === 'in_progress') throw new ConflictError('The call is in progress; delete it after it ends');
  const keys = runFileKeys(ref);
  await deleteRunFiles(
    [run.recording_key, run.transcript_key, keys.recording, keys.transcript, keys.whisper].filter(
      (key): key is string => Boolean(key),
    ),
  );
  await deleteDeliveriesOfRun(ref);
  await deleteRunLogs(ref);
  if (!(await deleteRun(run))) throw new ConflictError('The call is in progress; delete it after it ends');
}
