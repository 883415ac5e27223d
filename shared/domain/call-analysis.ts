import * as z from 'zod';
import type { CallAnalysisPlan, RunAnalysis } from '../schemas/call-analysis.ts';
import type { FlowPathStep } from './flows.ts';
import type { TranscriptSegment } from './transcripts.ts';

/** Model requests per analysis before it is recorded `failed`. */
export const ANALYSIS_ATTEMPTS = 3;

/** The wait before attempt `attempt` (2-based): 2 s, then 8 s. */
export const analysisRetryDelayMs = (attempt: number): number => 2_000 * 4 ** (attempt - 2);

/**
 * How long after a call's end its analysis may stay pending: past the function's three async
 * attempts (of up to 180 s, a minute and two apart), it failed every one, and the outbox records
 * the analysis as failed so the run's webhooks still go.
 */
export const ANALYSIS_DEADLINE_MS = 30 * 60_000;

/** Whether a pending analysis of a run that ended at `endedAt` is past its deadline at `now`. */
export const analysisOverdue = (endedAt: string | null, now: Date): boolean =>
  endedAt !== null && now.getTime() - Date.parse(endedAt) > ANALYSIS_DEADLINE_MS;

/** The `response_format` name of the analysis request (the local fake model answers it by name). */
export const CALL_ANALYSIS = 'call_analysis';

/** What an ended run's analysis starts as: pending when the agent asks for one and there is a transcript to read. */
export function initialAnalysis(plan: CallAnalysisPlan | null | undefined, hasTranscript: boolean): RunAnalysis | null {
  if (!plan || !hasTranscript) return null;
  return {
    status: 'pending',
    summary: null,
    structured_data: null,
    success_evaluation: null,
    error: null,
    attempts: 0,
    completed_at: null,
  };
}

/**
 * The analysis plan of a call placed with a campaign `goal`: success is judged against the goal,
 * and against the agent's own criteria when it has some. No plan: no analysis (a goal alone adds
 * no model request).
 */
export function analysisPlanWithGoal(
  plan: CallAnalysisPlan | null,
  goal: string | null | undefined,
): CallAnalysisPlan | null {
  if (!plan || !goal) return plan;
  const reached = `The campaign's goal was reached: ${goal}.`;
  return { ...plan, success_criteria: plan.success_criteria ? `${reached} And: ${plan.success_criteria}` : reached };
}

/** The answer the model must give for `plan`: a summary, and the parts the plan asks for. */
export function analysisAnswerSchema(plan: CallAnalysisPlan) {
  return z.object({
    summary: z.string().min(1),
    ...(plan.structured_data_schema
      ? {
          structured_data: z.fromJSONSchema(
            plan.structured_data_schema as Parameters<typeof z.fromJSONSchema>[0],
          ) as z.ZodType<Record<string, unknown>>,
        }
      : {}),
    ...(plan.success_criteria
      ? { success_evaluation: z.object({ successful: z.boolean(), reason: z.string().min(1) }) }
      : {}),
    ...(plan.memories ? { memories: z.array(AssistantMemory).max(MAX_MEMORIES_PER_CALL) } : {}),
  });
}

/** Memories the assistant writes from one call, at most. */
export const MAX_MEMORIES_PER_CALL = 5;

/** A memory as the model proposes it; `due_at` (a task's) as ISO 8601 with an offset, or null. */
const AssistantMemory = z.object({
  content: z.string().min(1).max(2000),
  topic: z.string().max(255),
  due_at: z.string().max(40).nullable(),
  about_caller: z.boolean(),
});
export type AssistantMemory = z.infer<typeof AssistantMemory>;

/** Words of a memory compared for repeats: lower case, letters and digits only. */
const gist = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

/**
 * The assistant's proposals that are new: a valid `due_at` (else a note), none repeating an
 * existing memory's or another proposal's words, at most MAX_MEMORIES_PER_CALL.
 */
export function newMemories(
  proposed: readonly AssistantMemory[],
  existing: readonly { content: string }[],
): { content: string; topic: string; due_at: string | null; about_caller: boolean }[] {
  const seen = new Set(existing.map((memory) => gist(memory.content)));
  return proposed
    .map((memory) => ({
      content: memory.content.trim(),
      topic: memory.topic.trim(),
      due_at:
        memory.due_at && /[zZ]|[+-]\d{2}:\d{2}$/.test(memory.due_at) && !Number.isNaN(Date.parse(memory.due_at))
          ? new Date(memory.due_at).toISOString()
          : null,
      about_caller: memory.about_caller,
    }))
    .filter((memory) => {
      const key = gist(memory.content);
      if (!key || seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .slice(0, MAX_MEMORIES_PER_CALL);
}
export type AnalysisAnswer = z.infer<ReturnType<typeof analysisAnswerSchema>>;

const DEFAULT_SUMMARY =
  'Summarize the conversation in two or three neutral sentences: who wanted what, and what was agreed.';

/** The path a call took through its conversation flow, a line a step, for the analysis (and why it moved on). */
export function flowPathLines(path: readonly FlowPathStep[]): string[] {
  return path.map((step, index) => {
    const next = path[index + 1];
    if (!next) return `- ${step.name} (the call ended here)`;
    return `- ${step.name}, then ${next.name}${step.reason ? `: ${step.reason}` : ''}`;
  });
}

/**
 * The analysis request: the plan's instructions as the system prompt; the disposition, the path
 * through the flow (a flow's call) and the transcript as the prompt.
 */
export function analysisRequest(
  plan: CallAnalysisPlan,
  transcript: readonly Pick<TranscriptSegment, 'role' | 'text'>[],
  callDisposition: string | null,
  flowPath: readonly FlowPathStep[] | null = null,
  remembered: { memories: readonly { content: string; due_at: string | null }[]; endedAt: string } | null = null,
): { system: string; prompt: string } {
  const system = [
    'You are a call analyst. You read the transcript of a conversation between an AI agent and a person and answer with JSON only.',
    `summary: ${plan.summary_prompt ?? DEFAULT_SUMMARY}`,
    ...(plan.structured_data_schema
      ? ['structured_data: the data the schema asks for, taken from what the person said; do not invent values.']
      : []),
    ...(plan.success_criteria
      ? [
          `success_evaluation: whether the conversation met these criteria, and why in one sentence: ${plan.success_criteria}`,
        ]
      : []),
    ...(plan.memories
      ? [
          `memories: at most ${MAX_MEMORIES_PER_CALL} things the agent should remember for later calls: notes (what was learned about the person or the business; due_at null) ` +
            `and tasks the agent promised (a callback: due_at when it is due, ISO 8601 with an offset; the call ended at ${remembered?.endedAt ?? 'an unknown time'}). ` +
            'about_caller: true when it is about this person. Nothing the agent already remembers; an empty list when nothing is new.',
        ]
      : []),
  ].join('\n');
  const lines = transcript.map(({ role, text }) => `${role === 'assistant' ? 'Agent' : 'Person'}: ${text}`);
  const prompt = [
    ...(callDisposition ? [`Disposition chosen by the agent: ${callDisposition}`] : []),
    ...(flowPath?.length
      ? ['Steps of the conversation flow the call went through, in order:', ...flowPathLines(flowPath)]
      : []),
    ...(plan.memories && remembered?.memories.length
      ? [
          'What the agent already remembers:',
          ...remembered.memories.map(
            (memory) => `- ${memory.content}${memory.due_at ? ` (due ${memory.due_at})` : ''}`,
          ),
        ]
      : []),
    'Transcript:',
    ...lines,
  ].join('\n');
  return { system, prompt };
}

/** The analysis once the model answered. */
export function completedAnalysis(answer: AnalysisAnswer, attempts: number, now: string): RunAnalysis {
  return {
    status: 'completed',
    summary: answer.summary,
    structured_data: (answer as { structured_data?: Record<string, unknown> }).structured_data ?? null,
    success_evaluation:
      (answer as { success_evaluation?: RunAnalysis['success_evaluation'] }).success_evaluation ?? null,
    error: null,
    attempts,
    completed_at: now,
  };
}

/** The analysis once every attempt failed (or none could be made): the reason stays visible. */
export function failedAnalysis(reason: string, attempts: number, now: string): RunAnalysis {
  return {
    status: 'failed',
    summary: null,
    structured_data: null,
    success_evaluation: null,
    error: reason.slice(0, 500),
    attempts,
    completed_at: now,
  };
}
