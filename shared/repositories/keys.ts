/**
 * Single-table key design. Every entity's keys are built here and nowhere else; the README's
 * "Data model" section is the same table in prose. Access patterns:
 *
 * | entity            | pk                  | sk                                 | gsi1pk                | gsi1sk              |
 * |-------------------|---------------------|------------------------------------|-----------------------|---------------------|
 * | id counter        | COUNTER             | <counter name>                     |                       |                     |
 * | organization      | ORG#<orgId>         | ORG                                |                       |                     |
 * | API key           | APIKEY#<keyId>      | APIKEY                             | ORG#<orgId>#APIKEYS   | <createdAt>#<keyId> |
 * | agent             | ORG#<orgId>         | AGENT#<agentId, 12 digits>         |                       |                     |
 * | agent public id   | ORG#<orgId>         | AGENTPUB#<publicId>                |                       |                     |
 * | agent definition  | ORG#<orgId>         | AGENTDEF#<agentId>#<defId, 12 d.>  |                       |                     |
 * | do-not-call entry | ORG#<orgId>         | DNC#<E.164 number>                 |                       |                     |
 * | run               | ORG#<o>#AGENT#<a>   | RUN#<runId, 12 digits>             | RUNS#ACTIVE (sparse)  | <createdAt>#<o>#<a>#<runId> |
 * |   … once ended    |                     |                                    | EVENTS#PENDING until call.completed is published | <endedAt>#<o>#<a>#<runId> |
 * | run log line      | ORG#<o>#AGENT#<a>#RUN#<r> | LOG#<timestamp>#<seq, 10 d.>#<rand> |              |                     |
 * | run text message  | ORG#<o>#AGENT#<a>#RUN#<r> | SMS#<smsId (time-ordered)>   |                       |                     |
 * | SMS rate window   | ORG#<orgId>         | SMSRATE#<minute> (TTL)             |                       |                     |
 * | text line         | ORG#<orgId>         | TEXTLINE#<caller's E.164> (TTL)    |                       |                     |
 * | knowledge doc     | ORG#<o>#AGENT#<a>   | KBDOC#<documentId>                 |                       |                     |
 * | knowledge passage | ORG#<o>#AGENT#<a>   | KBCHUNK#<documentId>#<n, 5 digits> |                       |                     |
 * | agent tool        | ORG#<o>#AGENT#<a>   | TOOL#<toolId>                      |                       |                     |
 * | agent memory      | ORG#<o>#AGENT#<a>   | MEMORY#<memoryId>                  | …#TASKS (open task) / …#NOTES#<contact or -> (note) | <due_at>#<id> / <created_at>#<id> |
 * | task due entry    | ORG#<o>#AGENT#<a>   | TASKDUE#<memoryId>                 | TASKS#DUE             | <at>#<o>#<a>#<memoryId> |
 * | agent test case   | ORG#<o>#AGENT#<a>   | AGENTTEST#<testId>                 |                       |                     |
 * | agent test run    | ORG#<o>#AGENT#<a>   | TESTRUN#<testRunId, 12 digits>     |                       |                     |
 * | test case attempt | ORG#<o>#AGENT#<a>#TESTRUN#<t> | ATTEMPT#<case, 4 d.>#<attempt, 3 d.> |             |                     |
 * | usage (billing)   | ORG#<orgId>         | USAGE#<endedAt>#<runId>            |                       |                     |
 * | latency histogram | ORG#<orgId>         | LATENCY#<day>#<agentId, 12 digits> |                       |                     |
 * | campaign          | ORG#<orgId>         | CAMPAIGN#<campaignId, 12 digits>   | CAMPAIGNS#ACTIVE (sparse) | <orgId>#<campaignId> |
 * | campaign contact  | ORG#<o>#CAMPAIGN#<c>| CONTACT#<row, 8 digits>            | ORG#<o>#CAMPAIGN#<c>#DUE / #DIALING (sparse) | <nextAttemptAt>#<row> / <row> |
 * | integration conn. | ORG#<orgId>         | CONNECTION#<connectionId>          |                       |                     |
 * | OAuth consent     | ORG#<orgId>         | CONSENT#<state>  (TTL expiresAt)   |                       |                     |
 * | source refresh    | ORG#<orgId>         | CAMPAIGNREFRESH#<campaignId>       | CAMPAIGNS#REFRESH     | <nextSyncAt>#<o>#<c> |
 * | phone number      | ORG#<orgId>         | PHONENUMBER#<id, 12 digits>        | NUMBERS#RENEWAL while active | <renewsAt>#<o>#<id> |
 * |                   |                     |                                    | NUMBERS#REVIEW while in review | <createdAt>#<o>#<id> |
 * | number claim      | PHONENUMBER#<E.164> | CLAIM                              |                       |                     |
 * | number document   | ORG#<orgId>         | REGDOC#<id, 12 digits>             |                       |                     |
 * | outbound number   | ORG#<orgId>         | OUTBOUND#<agentId, 12 digits>      |                       |                     |
 * | balance charge    | ORG#<orgId>         | CHARGE#<at>#<numberId>             |                       |                     |
 * | org's model key   | ORG#<orgId>         | MODELKEY                           |                       |                     |
 * | org's telephony   | ORG#<orgId>         | TELEPHONYCONFIG                    |                       |                     |
 * | call-rate bucket  | CALLRATE#<provider>:<account> | BUCKET                   |                       |                     |
 * | inbound call      | INBOUNDCALL#<provider>#<callId> | CLAIM                  |                       |                     |
 * | API trigger       | ORG#<orgId>         | TRIGGER#<triggerId>                |                       |                     |
 * | webhook endpoint  | ORG#<orgId>         | WEBHOOK#<webhookId>                |                       |                     |
 * | webhook delivery  | ORG#<o>#WEBHOOK#<w> | DELIVERY#<createdAt>#<messageId>   | ORG#<o>#RUN#<a>#<r>   | <messageId>         |
 * | delivery message  | ORG#<o>#WEBHOOK#<w> | MESSAGE#<messageId>                | DELIVERIES#PENDING while pending | <nextAttemptAt>#<o>#<w>#<messageId> |
 * | webhook count     | ORG#<orgId>         | WEBHOOKCOUNT                       |                       |                     |
 * | idempotency rec.  | IDEMPOTENCY#<scope> | <hash of org id + Idempotency-Key> |                       |                     |
 *
 * - Get an API key by its id (authorizer): GetItem APIKEY#<keyId>.
 * - List an organization's keys (operator CLI): Query gsi1 on ORG#<orgId>#APIKEYS.
 * - The memories a call reads (domain/memories.ts): Query gsi1 ORG#<o>#AGENT#<a>#TASKS ascending
 *   (open tasks, soonest due first; a ticked-off task leaves the index) and …#NOTES#<caller> and
 *   …#NOTES#- descending (newest notes first), each with its slot count as Limit.
 * - Tasks come due (task.due, a due task's call): Query gsi1 TASKS#DUE, gsi1sk <= now; the entry is
 *   written with its memory (a new open task or a new due_at) and removed once its steps are done.
 * - Agents of an organization in id order: Query ORG#<orgId>, sk begins_with AGENT#.
 * - Agent by integer id: GetItem; by public id: GetItem on the alias, then on the agent. Both are
 *   scoped by the caller's organization, so another organization's agent is simply not found.
 * - Do-not-call check: GetItem ORG#<orgId> / DNC#<number>; list: Query begins_with DNC#.
 * - Runs of an agent, newest first: Query ORG#<o>#AGENT#<a> descending. A run is in the agent's
 *   partition, not the organization's, so busy organizations spread over many partitions.
 * - A run's log lines in order (single run read): Query ORG#<o>#AGENT#<a>#RUN#<r>, sk
 *   begins_with LOG#; its text messages: the same, begins_with SMS#; deletion: the whole partition.
 *   A text's status callback: GetItem/UpdateItem by the run and the text's id (both in its URL).
 * - An organization's texts this minute (its SMS rate): UpdateItem ADD on ORG#<orgId> / SMSRATE#<minute>. A partition per run: lines never count toward the run item's 400 KB, and a
 *   long call's lines do not crowd its agent's partition.
 * - The run a caller's text belongs to (a reply during or after their call): GetItem ORG#<orgId> /
 *   TEXTLINE#<caller's number>, put when their latest call was answered, kept a day (TTL).
 * - In-progress runs (sweeper): Query gsi1 RUNS#ACTIVE; the entry moves to EVENTS#PENDING when the run
 *   ends and is removed once call.completed is on the bus (the outbox: unpublished events are re-sent).
 * - Browser/chat sessions never connected (sweeper): Query gsi1 SESSIONS#UNCONNECTED, gsi1sk <= now,
 *   by the expiry of their credential; the entry becomes RUNS#ACTIVE when the session connects.
 * - Usage per period: Query ORG#<orgId>, sk between USAGE#<from> and USAGE#<to>.
 * - Latency per agent and day: Query ORG#<orgId>, sk between LATENCY#<first day> and LATENCY#<last day>#~
 *   (counters ADDed when each call ends; one agent's: the same with a filter on agent_id).
 * - Campaigns of an organization: Query ORG#<orgId>, sk begins_with CAMPAIGN#.
 * - Running or scheduled campaigns (restart reconciliation): Query gsi1 CAMPAIGNS#ACTIVE.
 * - Contacts due for a call, soonest first: Query gsi1 ORG#<o>#CAMPAIGN#<c>#DUE, gsi1sk <= now.
 * - Contacts being dialed (in-flight count, reconciliation): Query gsi1 ORG#<o>#CAMPAIGN#<c>#DIALING.
 * - Report: Query ORG#<o>#CAMPAIGN#<c> in row order.
 * - Campaign sources due for a re-sync: Query gsi1 CAMPAIGNS#REFRESH, gsi1sk <= now.
 * - Numbers of an organization: Query ORG#<orgId>, sk begins_with PHONENUMBER#; who owns a number
 *   (one owner at most, calls to pending numbers): GetItem PHONENUMBER#<E.164>/CLAIM.
 * - Numbers due for renewal: Query gsi1 NUMBERS#RENEWAL, gsi1sk <= now.
 * - Outbound numbers of an organization's agents: Query ORG#<orgId>, sk begins_with OUTBOUND#.
 * - Trigger by id (trigger call): GetItem ORG#<orgId> / TRIGGER#<id>; list: Query begins_with TRIGGER#.
 * - Webhooks of an organization (fan-out of an event): Query ORG#<orgId>, sk begins_with WEBHOOK#.
 * - Deliveries of a webhook, newest first: Query ORG#<o>#WEBHOOK#<w> descending.
 * - Deliveries about a run (deleted with the run): Query gsi1 ORG#<o>#RUN#<a>#<r>.
 * - A delivery by its webhook-id (retry, repeated fan-out): GetItem MESSAGE#<messageId>, then the delivery.
 * - Pending deliveries (resumed when the local stack restarts): Query gsi1 DELIVERIES#PENDING.
 * - An agent's memories, knowledge documents, passages (search reads them all) and tools:
 *   Query ORG#<o>#AGENT#<a>, sk begins_with MEMORY# / KBDOC# / KBCHUNK# (or KBCHUNK#<doc>#) / TOOL#.
 * - An agent's test cases: Query ORG#<o>#AGENT#<a>, sk begins_with AGENTTEST#; its test runs, newest
 *   first: the same on TESTRUN#, descending; a test run's attempts in case order: Query its own partition.
 * - Idempotency-Key replay (Powertools): GetItem IDEMPOTENCY#<scope> / <hash>; TTL 24 h.
 * Integer ids come from atomic counters (UpdateItem ADD), unique per table.
 */
const pad = (n: number): string => String(n).padStart(12, '0');

export const keys = {
  counter: (name: string) => ({ pk: 'COUNTER', sk: name }),
  organization: (orgId: number) => ({ pk: `ORG#${orgId}`, sk: 'ORG' }),
  apiKey: (keyId: string) => ({ pk: `APIKEY#${keyId}`, sk: 'APIKEY' }),
  apiKeyByOrgIndex: (orgId: number, createdAt: string, keyId: string) => ({
    gsi1pk: `ORG#${orgId}#APIKEYS`,
    gsi1sk: `${createdAt}#${keyId}`,
  }),
  orgPartition: (orgId: number) => `ORG#${orgId}`,
  agent: (orgId: number, agentId: number) => ({ pk: `ORG#${orgId}`, sk: `AGENT#${pad(agentId)}` }),
  agentSkPrefix: 'AGENT#',
  agentPublicId: (orgId: number, publicId: string) => ({ pk: `ORG#${orgId}`, sk: `AGENTPUB#${publicId}` }),
  agentDefinition: (orgId: number, agentId: number, definitionId: number) => ({
    pk: `ORG#${orgId}`,
    sk: `AGENTDEF#${pad(agentId)}#${pad(definitionId)}`,
  }),
  doNotCall: (orgId: number, e164: string) => ({ pk: `ORG#${orgId}`, sk: `DNC#${e164}` }),
  doNotCallSkPrefix: 'DNC#',
  runPartition: (orgId: number, agentId: number) => `ORG#${orgId}#AGENT#${pad(agentId)}`,
  run: (orgId: number, agentId: number, runId: number) => ({
    pk: `ORG#${orgId}#AGENT#${pad(agentId)}`,
    sk: `RUN#${pad(runId)}`,
  }),
  runSkPrefix: 'RUN#',
  runLogPartition: (orgId: number, agentId: number, runId: number) =>
    `ORG#${orgId}#AGENT#${pad(agentId)}#RUN#${pad(runId)}`,
  runLogSk: (timestamp: string, seq: number, unique: string) =>
    `LOG#${timestamp}#${String(seq).padStart(10, '0')}#${unique}`,
  runLogSkPrefix: 'LOG#',
  runSms: (orgId: number, agentId: number, runId: number, smsId: string) => ({
    pk: `ORG#${orgId}#AGENT#${pad(agentId)}#RUN#${pad(runId)}`,
    sk: `SMS#${smsId}`,
  }),
  runSmsSkPrefix: 'SMS#',
  smsRate: (orgId: number, minute: string) => ({ pk: `ORG#${orgId}`, sk: `SMSRATE#${minute}` }),
  textLine: (orgId: number, caller: string) => ({ pk: `ORG#${orgId}`, sk: `TEXTLINE#${caller}` }),
  memory: (orgId: number, agentId: number, memoryId: string) => ({
    pk: `ORG#${orgId}#AGENT#${pad(agentId)}`,
    sk: `MEMORY#${memoryId}`,
  }),
  memorySkPrefix: 'MEMORY#',
  /** An agent's open tasks, soonest due first (gsi1sk `<due_at>#<id>`). */
  openTasks: (orgId: number, agentId: number) => `ORG#${orgId}#AGENT#${pad(agentId)}#TASKS`,
  /** An agent's notes about one contact (`-`: about none), newest last (gsi1sk `<created_at>#<id>`). */
  notesAbout: (orgId: number, agentId: number, contact: string | null) =>
    `ORG#${orgId}#AGENT#${pad(agentId)}#NOTES#${contact ?? '-'}`,
  /** A task's due entry (repositories/due-tasks.ts), beside its memory. */
  dueTask: (orgId: number, agentId: number, memoryId: string) => ({
    pk: `ORG#${orgId}#AGENT#${pad(agentId)}`,
    sk: `TASKDUE#${memoryId}`,
  }),
  /** Every organization's due entries, soonest first (the scheduled function reads those at or before now). */
  dueTaskIndex: (orgId: number, agentId: number, memoryId: string, at: string) => ({
    gsi1pk: 'TASKS#DUE',
    gsi1sk: `${at}#${orgId}#${agentId}#${memoryId}`,
  }),
  knowledgeDocument: (orgId: number, agentId: number, documentId: string) => ({
    pk: `ORG#${orgId}#AGENT#${pad(agentId)}`,
    sk: `KBDOC#${documentId}`,
  }),
  knowledgeDocumentSkPrefix: 'KBDOC#',
  knowledgeChunk: (orgId: number, agentId: number, documentId: string, index: number) => ({
    pk: `ORG#${orgId}#AGENT#${pad(agentId)}`,
    sk: `KBCHUNK#${documentId}#${String(index).padStart(5, '0')}`,
  }),
  knowledgeChunkSkPrefix: 'KBCHUNK#',
  tool: (orgId: number, agentId: number, toolId: string) => ({
    pk: `ORG#${orgId}#AGENT#${pad(agentId)}`,
    sk: `TOOL#${toolId}`,
  }),
  toolSkPrefix: 'TOOL#',
  agentTest: (orgId: number, agentId: number, testId: string) => ({
    pk: `ORG#${orgId}#AGENT#${pad(agentId)}`,
    sk: `AGENTTEST#${testId}`,
  }),
  agentTestSkPrefix: 'AGENTTEST#',
  testRun: (orgId: number, agentId: number, testRunId: number) => ({
    pk: `ORG#${orgId}#AGENT#${pad(agentId)}`,
    sk: `TESTRUN#${pad(testRunId)}`,
  }),
  testRunSkPrefix: 'TESTRUN#',
  testAttemptPartition: (orgId: number, agentId: number, testRunId: number) =>
    `ORG#${orgId}#AGENT#${pad(agentId)}#TESTRUN#${pad(testRunId)}`,
  testAttempt: (orgId: number, agentId: number, testRunId: number, caseIndex: number, attempt: number) => ({
    pk: `ORG#${orgId}#AGENT#${pad(agentId)}#TESTRUN#${pad(testRunId)}`,
    sk: `ATTEMPT#${String(caseIndex).padStart(4, '0')}#${String(attempt).padStart(3, '0')}`,
  }),
  activeRunIndex: (createdAt: string, orgId: number, agentId: number, runId: number) => ({
    gsi1pk: 'RUNS#ACTIVE',
    gsi1sk: `${createdAt}#${orgId}#${agentId}#${runId}`,
  }),
  unconnectedSessionIndex: (expiresAt: string, orgId: number, agentId: number, runId: number) => ({
    gsi1pk: 'SESSIONS#UNCONNECTED',
    gsi1sk: `${expiresAt}#${orgId}#${agentId}#${runId}`,
  }),
  campaign: (orgId: number, campaignId: number) => ({ pk: `ORG#${orgId}`, sk: `CAMPAIGN#${pad(campaignId)}` }),
  campaignSkPrefix: 'CAMPAIGN#',
  activeCampaignIndex: (orgId: number, campaignId: number) => ({
    gsi1pk: 'CAMPAIGNS#ACTIVE',
    gsi1sk: `${orgId}#${campaignId}`,
  }),
  contactPartition: (orgId: number, campaignId: number) => `ORG#${orgId}#CAMPAIGN#${pad(campaignId)}`,
  contact: (orgId: number, campaignId: number, row: number) => ({
    pk: `ORG#${orgId}#CAMPAIGN#${pad(campaignId)}`,
    sk: `CONTACT#${String(row).padStart(8, '0')}`,
  }),
  contactSkPrefix: 'CONTACT#',
  dueContactIndex: (orgId: number, campaignId: number, nextAttemptAt: string, row: number) => ({
    gsi1pk: `ORG#${orgId}#CAMPAIGN#${pad(campaignId)}#DUE`,
    gsi1sk: `${nextAttemptAt}#${String(row).padStart(8, '0')}`,
  }),
  dialingContactIndex: (orgId: number, campaignId: number, row: number) => ({
    gsi1pk: `ORG#${orgId}#CAMPAIGN#${pad(campaignId)}#DIALING`,
    gsi1sk: String(row).padStart(8, '0'),
  }),
  connection: (orgId: number, connectionId: string) => ({ pk: `ORG#${orgId}`, sk: `CONNECTION#${connectionId}` }),
  connectionSkPrefix: 'CONNECTION#',
  consent: (orgId: number, state: string) => ({ pk: `ORG#${orgId}`, sk: `CONSENT#${state}` }),
  campaignRefresh: (orgId: number, campaignId: number) => ({
    pk: `ORG#${orgId}`,
    sk: `CAMPAIGNREFRESH#${pad(campaignId)}`,
  }),
  campaignRefreshIndex: (orgId: number, campaignId: number, nextSyncAt: string) => ({
    gsi1pk: 'CAMPAIGNS#REFRESH',
    gsi1sk: `${nextSyncAt}#${orgId}#${campaignId}`,
  }),
  phoneNumber: (orgId: number, numberId: number) => ({ pk: `ORG#${orgId}`, sk: `PHONENUMBER#${pad(numberId)}` }),
  phoneNumberSkPrefix: 'PHONENUMBER#',
  renewalIndex: (orgId: number, numberId: number, renewsAt: string) => ({
    gsi1pk: 'NUMBERS#RENEWAL',
    gsi1sk: `${renewsAt}#${orgId}#${numberId}`,
  }),
  reviewIndex: (orgId: number, numberId: number, createdAt: string) => ({
    gsi1pk: 'NUMBERS#REVIEW',
    gsi1sk: `${createdAt}#${orgId}#${numberId}`,
  }),
  numberClaim: (e164: string) => ({ pk: `PHONENUMBER#${e164}`, sk: 'CLAIM' }),
  regulatoryDocument: (orgId: number, documentId: number) => ({
    pk: `ORG#${orgId}`,
    sk: `REGDOC#${pad(documentId)}`,
  }),
  outboundNumber: (orgId: number, agentId: number) => ({ pk: `ORG#${orgId}`, sk: `OUTBOUND#${pad(agentId)}` }),
  outboundSkPrefix: 'OUTBOUND#',
  charge: (orgId: number, at: string, numberId: number) => ({
    pk: `ORG#${orgId}`,
    sk: `CHARGE#${at}#${pad(numberId)}`,
  }),
  modelKey: (orgId: number) => ({ pk: `ORG#${orgId}`, sk: 'MODELKEY' }),
  speechKey: (orgId: number, provider: string) => ({ pk: `ORG#${orgId}`, sk: `SPEECHKEY#${provider}` }),
  speechKeySkPrefix: 'SPEECHKEY#',
  telephonyConfig: (orgId: number) => ({ pk: `ORG#${orgId}`, sk: 'TELEPHONYCONFIG' }),
  /** Token bucket of a provider account's outbound call rate (shared by every organization using it). */
  callRateBucket: (accountKey: string) => ({ pk: `CALLRATE#${accountKey}`, sk: 'BUCKET' }),
  /** One run per incoming provider call, however often the voice webhook is retried. */
  inboundCall: (provider: string, callId: string) => ({ pk: `INBOUNDCALL#${provider}#${callId}`, sk: 'CLAIM' }),
  trigger: (orgId: number, triggerId: string) => ({ pk: `ORG#${orgId}`, sk: `TRIGGER#${triggerId}` }),
  triggerSkPrefix: 'TRIGGER#',
  webhook: (orgId: number, webhookId: string) => ({ pk: `ORG#${orgId}`, sk: `WEBHOOK#${webhookId}` }),
  webhookSkPrefix: 'WEBHOOK#',
  deliveryPartition: (orgId: number, webhookId: string) => `ORG#${orgId}#WEBHOOK#${webhookId}`,
  delivery: (orgId: number, webhookId: string, createdAt: string, messageId: string) => ({
    pk: `ORG#${orgId}#WEBHOOK#${webhookId}`,
    sk: `DELIVERY#${createdAt}#${messageId}`,
  }),
  deliverySkPrefix: 'DELIVERY#',
  deliveryByRunIndex: (orgId: number, agentId: number, runId: number, messageId: string) => ({
    gsi1pk: `ORG#${orgId}#RUN#${agentId}#${runId}`,
    gsi1sk: messageId,
  }),
  /** How many webhook endpoints an organization has (the cap is checked in the same transaction). */
  webhookCount: (orgId: number) => ({ pk: `ORG#${orgId}`, sk: 'WEBHOOKCOUNT' }),
  /** One per (event, endpoint): a repeated fan-out finds it; it also locates the delivery by its webhook-id. */
  deliveryMessage: (orgId: number, webhookId: string, messageId: string) => ({
    pk: `ORG#${orgId}#WEBHOOK#${webhookId}`,
    sk: `MESSAGE#${messageId}`,
  }),
  pendingDeliveryIndex: (nextAttemptAt: string, orgId: number, webhookId: string, messageId: string) => ({
    gsi1pk: 'DELIVERIES#PENDING',
    gsi1sk: `${nextAttemptAt}#${orgId}#${webhookId}#${messageId}`,
  }),
  idempotencyPartition: (scope: string) => `IDEMPOTENCY#${scope}`,
  pendingEventIndex: (endedAt: string, orgId: number, agentId: number, runId: number) => ({
    gsi1pk: 'EVENTS#PENDING',
    gsi1sk: `${endedAt}#${orgId}#${agentId}#${runId}`,
  }),
  usage: (orgId: number, endedAt: string, runId: number) => ({
    pk: `ORG#${orgId}`,
    sk: `USAGE#${endedAt}#${pad(runId)}`,
  }),
  /** An agent's latency histograms of a UTC day (`2026-11-25`): days, then agents, in order. */
  latencyDay: (orgId: number, day: string, agentId: number) => ({
    pk: `ORG#${orgId}`,
    sk: `LATENCY#${day}#${pad(agentId)}`,
  }),
  latencyDaySkPrefix: 'LATENCY#',
};

/** Key attributes are storage details; they are stripped before an item leaves a repository. */
/**
 * Idempotency-Key records of call placement (they hold the first response, which names the number).
 * Here, not beside the Powertools store, so that reading the partition does not load the store.
 */
export const CALLS_IDEMPOTENCY_SCOPE = 'calls';

export const KEY_ATTRIBUTES = ['pk', 'sk', 'gsi1pk', 'gsi1sk', 'expiresAt'] as const;

export function stripKeys<T extends Record<string, unknown>>(item: T): Omit<T, (typeof KEY_ATTRIBUTES)[number]> {
  const copy: Record<string, unknown> = { ...item };
  for (const attribute of KEY_ATTRIBUTES) delete copy[attribute];
  return copy as Omit<T, (typeof KEY_ATTRIBUTES)[number]>;
}
