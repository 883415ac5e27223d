import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  ANALYSIS_ATTEMPTS,
  analysisAnswerSchema,
  analysisRequest,
  analysisRetryDelayMs,
  CALL_ANALYSIS,
  completedAnalysis,
  failedAnalysis,
  newMemories,
  type AssistantMemory,
} from '../domain/call-analysis.ts';
import { MEMORY_SLOTS } from '../domain/memories.ts';
import * as memories from '../repositories/memories.ts';
import type { RunRef } from '../domain/run-ref.ts';
import { mergeFragments, parseTranscriptFile } from '../domain/transcripts.ts';
import { emitMemoryCreated } from '../events/webhook-events.ts';
import { logger } from '../observability/logger.ts';
import { readRunFileText } from '../repositories/run-files.ts';
import type { RunRecord } from '../domain/run.ts';
import { getRun } from '../repositories/runs-read.ts';
import type { RunAnalysis } from '../schemas/call-analysis.ts';
import { settleAnalysis } from './analysis-records.ts';
import { modelFor } from './language-models.ts';

/**
 * The post-call analysis of an ended run (the target of `call.completed`): the model reads the
 * transcript as the agent's plan asks, the analysis is recorded on the run (and on its campaign
 * contact), then `call.analyzed` sends the run's `call.completed` webhooks with it. Repeating it
 * is harmless: a recorded analysis is not redone, only published again (the fan-out is idempotent).
 */
export async function analyzeEndedRun(ref: RunRef, wait: (ms: number) => Promise<unknown> = sleep): Promise<boolean> {
  const run = await getRun(ref.organizationId, ref.agentId, ref.runId);
  if (!run?.analysis) return false;
  return settleAnalysis(ref, run, run.analysis.status === 'pending' ? await analyze(run, wait) : undefined);
}

/** The analysis of `run`: the model's answer, or why there is none after every attempt. */
async function analyze(run: RunRecord, wait: (ms: number) => Promise<unknown>): Promise<RunAnalysis> {
  const now = () => new Date().toISOString();
  const plan = run.analysis_plan;
  const text = run.transcript_key ? await readRunFileText(run.transcript_key) : undefined;
  if (!plan || text === undefined) return failedAnalysis('The transcript no longer exists', 0, now());
  const transcript = mergeFragments(parseTranscriptFile(text));
  if (!transcript.length) return failedAnalysis('The transcript is empty: nobody spoke', 0, now());
  // The assistant's memories: what the agent has (so the model repeats none), read as a call reads them.
  const remembered = plan.memories ? await memoriesOfCall(run) : [];
  const request = analysisRequest(
    plan,
    transcript,
    (run.gathered_context.call_disposition as string) ?? null,
    run.flow ?? null,
    plan.memories ? { memories: remembered, endedAt: run.ended_at ?? now() } : null,
  );
  let model;
  try {
    ({ model } = await modelFor(run.organization_id));
  } catch (error) {
    // The platform model is not configured: no attempt can succeed.
    return failedAnalysis((error as Error).message, 0, now());
  }
  let failure = '';
  for (let attempt = 1; attempt <= ANALYSIS_ATTEMPTS; attempt += 1) {
    if (attempt > 1) await wait(analysisRetryDelayMs(attempt));
    try {
      const answer = await model.extract({
        name: CALL_ANALYSIS,
        ...request,
        schema: analysisAnswerSchema(plan),
        strict: false,
      });
      const proposed = (answer as { memories?: AssistantMemory[] }).memories;
      if (proposed) await remember(run, newMemories(proposed, remembered));
      return completedAnalysis(answer, attempt, now());
    } catch (error) {
      failure = (error as Error).message;
      logger.warn('Post-call analysis attempt failed', { attempt, error: failure });
    }
  }
  return failedAnalysis(failure, ANALYSIS_ATTEMPTS, now());
}

/** The memories a call of `run`'s caller reads (open tasks, the caller's notes, the others). */
async function memoriesOfCall(run: RunRecord) {
  const [own, callerNotes] = await Promise.all([
    memories.agentMemories(run.organization_id, run.workflow_id),
    run.phone_number
      ? memories.latestNotes(run.organization_id, run.workflow_id, run.phone_number, MEMORY_SLOTS.callerNotes)
      : [],
  ]);
  return [...own.tasks, ...callerNotes, ...own.otherNotes];
}

/**
 * Writes the assistant's new memories of `run`: ids derived from the run and the position, so an
 * analysis repeated after a crash writes each once. A note about the caller is filed under the
 * run's number.
 */
async function remember(run: RunRecord, fresh: ReturnType<typeof newMemories>): Promise<void> {
  const at = new Date().toISOString();
  for (const [index, memory] of fresh.entries()) {
    const digest = createHash('sha256').update(`${run.organization_id}/${run.workflow_id}/${run.id}/${index}`).digest();
    const id = `mem_${[...digest.subarray(0, 16)].map((byte) => ALPHANUMERIC[byte % ALPHANUMERIC.length]).join('')}`;
    const record = {
      id,
      workflow_id: run.workflow_id,
      content: memory.content,
      topic: memory.topic,
      due_at: memory.due_at,
      done: false,
      contact: memory.about_caller ? run.phone_number : null,
      created_at: at,
      updated_at: at,
    };
    if (!(await memories.putMemoryOnce(run.organization_id, record))) continue;
    logger.info('Assistant memory written', { runId: run.id, memoryId: id, task: memory.due_at !== null });
    await emitMemoryCreated(run.organization_id, record, 'assistant', run.id);
  }
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
