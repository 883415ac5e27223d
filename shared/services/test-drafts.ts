import { draftTestCase } from '../domain/agent-test-drafts.ts';
import { ConflictError } from '../domain/errors.ts';
import { mergeFragments, parseTranscriptFile } from '../domain/transcripts.ts';
import { readRunFileText } from '../repositories/run-files.ts';
import { testSubject } from './agent-tests.ts';
import { findRun } from './conversations.ts';
import { getAgent } from './agents.ts';

const readLanguage = (configurations: unknown): string | undefined => {
  const language = (configurations as { language?: unknown } | null | undefined)?.language;
  return typeof language === 'string' ? language : undefined;
};

/**
 * `GET /agents/{agent_id}/conversations/{conversation_id}/test-draft`: a test case drafted from an
 * ended conversation (domain/agent-test-drafts.ts), its expectations only what the agent has now.
 * Nothing is saved: the customer edits it and creates it with `POST /agents/{agent_id}/tests`.
 */
export async function draftTestFromConversation(orgId: number, agentRef: string, runId: number) {
  const [{ run }, agent] = await Promise.all([findRun(orgId, agentRef, runId), getAgent(orgId, agentRef)]);
  if (run.status === 'in_progress' || run.status === 'created')
    throw new ConflictError('The conversation has not ended: a test is drafted from an ended one');
  const content = run.transcript_key ? await readRunFileText(run.transcript_key) : undefined;
  const transcript = content ? mergeFragments(parseTranscriptFile(content)) : [];
  return draftTestCase(
    {
      id: run.id,
      name: run.name,
      initial_context: run.initial_context,
      gathered_context: run.gathered_context,
      path: (run.flow ?? []).map((step) => step.node_id),
      transcript,
      // The agent's language is the call's (media/src/agent/call-plan.ts voiceSettings).
      language: readLanguage(agent.workflow_configurations),
    },
    await testSubject(orgId, agent),
  );
}
