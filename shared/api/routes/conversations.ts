import { ErrorResponse } from '../../schemas/common.ts';
import { CreateTestCaseRequest } from '../../schemas/agent-tests.ts';
import { AgentIdParam } from '../../schemas/agents.ts';
import {
  ConversationIdParams,
  ConversationRecord,
  CreateConversationRequest,
  ListConversationsQuery,
  RecordingQuery,
  RecordingResponse,
  Run,
  RunPage,
  TranscriptResponse,
} from '../../schemas/runs.ts';
import { ListenSession, LiveCommand, LiveCommandResponse } from '../../schemas/live-calls.ts';
import { NOT_FOUND, UNAUTHORIZED, VALIDATION } from '../common-responses.ts';
import { defineRoute } from '../route.ts';

export const conversationRoutes = {
  createConversation: defineRoute({
    operationId: 'createConversation',
    method: 'POST',
    path: '/agents/{agent_id}/conversations',
    group: 'conversations',
    summary: 'Create a conversation record (browser voice or chat); never dials',
    description:
      "`initial_context` is merged over the agent's `template_context_variables`. Telephony mode names are accepted and only create a record.",
    tags: ['Conversations'],
    request: { params: AgentIdParam, body: CreateConversationRequest },
    responses: {
      200: {
        description: 'The run record (200, as the earlier service answered; the spec gives no status)',
        schema: ConversationRecord,
      },
      ...UNAUTHORIZED,
      ...NOT_FOUND,
      ...VALIDATION,
    },
  }),
  listConversations: defineRoute({
    operationId: 'listConversations',
    method: 'GET',
    path: '/agents/{agent_id}/conversations',
    group: 'conversations',
    summary: "List an agent's runs, newest first",
    description:
      'Runs (calls and browser or chat sessions) of the agent, newest first, paginated. Each item carries `initial_context`, `gathered_context` and `duration_seconds`; download links, logs and SMS come only with a single run. ' +
      'Narrow the list with `status`, `disposition`, `created_from`/`created_to` and `search` (combined with AND); `total_count` counts the matching runs.',
    tags: ['Conversations'],
    request: { params: AgentIdParam, query: ListConversationsQuery },
    responses: { 200: { description: 'One page', schema: RunPage }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
  getConversation: defineRoute({
    operationId: 'getConversation',
    method: 'GET',
    path: '/agents/{agent_id}/conversations/{conversation_id}',
    group: 'conversations',
    summary: 'Get one run, with fresh download links',
    description:
      'Links need no API key and expire 1 hour after this request (`download_urls_expire_at`); fetch the run again for new ones.',
    tags: ['Conversations'],
    request: { params: ConversationIdParams },
    responses: { 200: { description: 'Run', schema: Run }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
  deleteConversation: defineRoute({
    operationId: 'deleteConversation',
    method: 'DELETE',
    path: '/agents/{agent_id}/conversations/{conversation_id}',
    group: 'conversations',
    summary: 'Delete a run irreversibly',
    description:
      'Removes the recording, transcript (every file of the run), `initial_context` with the phone number, `gathered_context`, logs, SMS, the analysis and webhook delivery records; links already issued stop working. ' +
      "For a campaign call, the contact loses the call's disposition and post-call analysis (the campaign report then shows `run_erased_at`, and `erased` in the CSV); " +
      'it keeps its status, attempts, outcome, run id and times, which the campaign counts. ' +
      'Duration and cost stay in the billing record. 409 while the call is in progress, or while its campaign is still recording its outcome (a moment). Payloads already delivered are not recalled.',
    tags: ['Conversations'],
    request: { params: ConversationIdParams },
    responses: {
      204: { description: 'Deleted' },
      409: { description: 'Call in progress, or its campaign outcome not recorded yet', schema: ErrorResponse },
      ...UNAUTHORIZED,
      ...NOT_FOUND,
      ...VALIDATION,
    },
  }),
  getTranscript: defineRoute({
    operationId: 'getTranscript',
    method: 'GET',
    path: '/agents/{agent_id}/conversations/{conversation_id}/transcript',
    group: 'conversations',
    summary: 'Transcript of a run',
    description:
      'Consecutive fragments of one speaker are merged into one segment. 404 while the call is in progress or after retention.',
    tags: ['Conversations'],
    request: { params: ConversationIdParams },
    responses: {
      200: { description: 'Transcript', schema: TranscriptResponse },
      ...UNAUTHORIZED,
      ...NOT_FOUND,
      ...VALIDATION,
    },
  }),
  draftTestFromConversation: defineRoute({
    operationId: 'draftTestFromConversation',
    method: 'GET',
    path: '/agents/{agent_id}/conversations/{conversation_id}/test-draft',
    group: 'conversations',
    summary: 'Draft a test case from a conversation',
    description:
      '"Make a test from this call": a test case drafted from an ended conversation, for you to edit and create with `POST /agents/{agent_id}/tests`. Its caller\'s turns become the simulated caller\'s `script`; its outcome the expectations (its disposition, the variables it gathered with their values, the last flow step), only those the agent still has; a judged criterion to rewrite when none applies. Nothing is saved. 409 while the conversation is in progress.',
    tags: ['Agent tests'],
    request: { params: ConversationIdParams },
    responses: {
      200: { description: 'The drafted case', schema: CreateTestCaseRequest },
      ...UNAUTHORIZED,
      ...NOT_FOUND,
      409: { description: 'The conversation has not ended', schema: ErrorResponse },
      ...VALIDATION,
    },
  }),
  getRecording: defineRoute({
    operationId: 'getRecording',
    method: 'GET',
    path: '/agents/{agent_id}/conversations/{conversation_id}/recording',
    group: 'conversations',
    summary: "Signed link to a run's WAV recording",
    description: '404 while the call is in progress or after retention.',
    tags: ['Conversations'],
    request: { params: ConversationIdParams, query: RecordingQuery },
    responses: {
      200: { description: 'Recording', schema: RecordingResponse },
      ...UNAUTHORIZED,
      ...NOT_FOUND,
      ...VALIDATION,
    },
  }),
  listenToConversation: defineRoute({
    operationId: 'listenToConversation',
    method: 'POST',
    path: '/agents/{agent_id}/conversations/{conversation_id}/listen',
    group: 'conversations',
    summary: 'Listen to a live call or session',
    description:
      "A WebSocket URL streaming the live run: both sides' audio (8 kHz mu-law, base64, per `track`) and its events (final transcript lines, tool calls, knowledge used, control commands), `end` last. The credential in the URL is for this run only, to connect within 5 minutes; at most 5 listeners per run. 409 when the run is not live (not answered or connected yet, or ended). A refused connection is closed with 4000 + the HTTP status it would have (4401 for a forged or expired credential, 4409 for a run no longer live, 4429 beyond 5 listeners).",
    tags: ['Conversations'],
    request: { params: ConversationIdParams },
    responses: {
      200: { description: 'Where to listen', schema: ListenSession },
      409: { description: 'Not live', schema: ErrorResponse },
      ...UNAUTHORIZED,
      ...NOT_FOUND,
      ...VALIDATION,
    },
  }),
  controlConversation: defineRoute({
    operationId: 'controlConversation',
    method: 'POST',
    path: '/agents/{agent_id}/conversations/{conversation_id}/control',
    group: 'conversations',
    summary: 'Steer a live call or session: say, add a message, end',
    description:
      "`say` speaks (or, in a chat, writes) a sentence after the answer the agent is giving, then hangs up if `end_call`; `add_message` adds a system message to the model's context (and has the agent answer now if `respond`); `end` ends the run, after a goodbye if `say` is given, as if the agent ended it (the provider's call is hung up, the run ends `completed`, `call.completed` fires). Each is noted in the run's logs and sent to its listeners. Commands keep their order: an `end` with a goodbye right after a `say` has the sentence said first, then the goodbye; nothing is said after an `end` without one. 409 when the run is not live, or is ending; 502 when the media service cannot be reached.",
    tags: ['Conversations'],
    request: { params: ConversationIdParams, body: LiveCommand },
    responses: {
      200: { description: 'Applied', schema: LiveCommandResponse },
      409: { description: 'Not live, or ending', schema: ErrorResponse },
      502: { description: 'The media service could not be reached', schema: ErrorResponse },
      ...UNAUTHORIZED,
      ...NOT_FOUND,
      ...VALIDATION,
    },
  }),
};
