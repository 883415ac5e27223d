/**
 * Connects the media stream of a call to the platform: when the stream starts it loads the agent
 * with its knowledge base, tools and memories (the notes about the caller at the answer, even for a
 * call prepared while it rang: call-answer.ts) and picks the providers (the organization's own
 * model key, else the platform's). What the call produced is saved by call-saving.ts.
 */
import { buildCallPlan, flowOf, voiceSettings } from './agent/call-plan.ts';
import { preCallVariables } from './agent/pre-call-fetch.ts';
import { warmModel, type SpeechAhead } from './agent/early-providers.ts';
import { GreetingCache, greetingSpeech } from './agent/greeting-cache.ts';
import type { EarlyCall } from './call-preparer.ts';
import { OpenAiChatModel, organizationSpeechProviders, type PlatformProviders } from './agent/providers.ts';
import { CallPipeline } from './call/call-pipeline.ts';
import type { CallPipelineOptions, LogFn, PreparedCall } from './call/call-types.ts';
import { organizationModelFetch } from '../../shared/ai/language-model.ts';
import { reuseFor } from '../../shared/caching/reuse-for.ts';
import { decryptSecret } from '../../shared/crypto/secret-box.ts';
import { formatRunRef, parseRunRef, type RunRef } from '../../shared/domain/run-ref.ts';
import * as agentResources from '../../shared/repositories/agent-resources.ts';
import * as agents from '../../shared/repositories/agents.ts';
import * as definitions from '../../shared/repositories/definitions.ts';
import * as memories from '../../shared/repositories/memories.ts';
import * as modelKeys from '../../shared/repositories/model-keys.ts';
import { appendRunLog } from '../../shared/repositories/run-logs.ts';
import { listRunSms } from '../../shared/repositories/run-sms.ts';
import type { RunRecord } from '../../shared/domain/run.ts';
import { CHAT_MODE, hasSession } from '../../shared/domain/browser-sessions.ts';
import { MEMORY_SLOTS, memoriesForCall } from '../../shared/domain/memories.ts';
import { takeBack, textsWhileTransferred, withHandoff } from './call-take-back.ts';
import { callStartedEvents, withCallerNotes, type CallSetup } from './call-answer.ts';
import type { Memory } from '../../shared/schemas/memories.ts';
import { sendRunSms } from '../../shared/services/text-messages.ts';
import { organizationSpeechKeys } from '../../shared/services/speech-keys.ts';
import { saveMemory } from '../../shared/services/memories.ts';

export interface CallSessionConfig {
  /** The platform's providers (their keys read when a call needs them). */
  providers: PlatformProviders;
  /** The settings they were made from (URLs, models, voice), for an organization's own speech keys. */
  settings: NodeJS.ProcessEnv;
  /** Replaces the SSRF-guarded fetch of the agents' HTTP tools (the local stack's fake tool endpoint). */
  toolFetch?: typeof fetch;
  /** Replaces the SSRF-guarded fetch of an organization's own model URL (tests). */
  modelFetch?: typeof fetch;
  /** Wall-time bounds on the model (default the product's; the tests' stack gives the filler longer). */
  timing?: CallPipelineOptions['timing'];
}

/**
 * Appends to the run's logs in order, each line an item of its own (run-logs.ts: no size of the
 * run item can refuse one). A line that cannot be written is an error of the service, logged with
 * the line itself so it is still found; the call goes on.
 */
function runLogger(ref: RunRef, log: LogFn): NonNullable<PreparedCall['runLog']> {
  let chain = Promise.resolve();
  return (level, message) => {
    const line = { timestamp: new Date().toISOString(), level, message };
    chain = chain
      .then(() => appendRunLog(ref, line))
      .then(
        () => {},
        (error: unknown) =>
          log('error', 'run log line not written', { runRef: formatRunRef(ref), line, error: String(error) }),
      );
  };
}

/**
 * How long the service reuses an agent's setup (the agent, its knowledge passages, tools and notes,
 * the organization's model and speech keys) for the next calls of that agent instead of reading it
 * per call: a change made through the API reaches the calls that start up to this much later (a
 * call itself writes none of them). The definition is not taken from here but from the run's
 * version (definitionVersion below). A campaign's calls to one agent then read it once per interval
 * rather than with 6 requests each.
 */
export const AGENT_SETUP_REUSE_MS = 5_000;

const agentSetup = reuseFor(AGENT_SETUP_REUSE_MS, async (agentKey: string) => {
  const [orgId, agentId] = agentKey.split('/').map(Number) as [number, number];
  const [agent, passages, tools, notes, modelKey, speechKeys] = await Promise.all([
    agents.getAgent(orgId, agentId),
    agentResources.allPassages(orgId, agentId),
    agentResources.listTools(orgId, agentId),
    // The agent's open tasks and general notes; the notes about the caller are read per call.
    memories.agentMemories(orgId, agentId),
    modelKeys.getModelKey(orgId),
    organizationSpeechKeys(orgId),
  ]);
  const model = modelKey && {
    apiUrl: modelKey.api_url,
    apiKey: await decryptSecret(modelKey.api_key_ciphertext, { organizationId: String(orgId) }),
    model: modelKey.model,
  };
  return { agent, passages, tools, notes, model, speechKeys };
});

/**
 * The definition version a run executes (its `definition_id`), not the agent's current one: a
 * publish while a call or campaign runs changes only the runs started after it. A version never
 * changes, so it is reused as long as it is asked for; at most 500 are kept (up to 200 kB each).
 */
const definitionVersion = reuseFor(
  Number.POSITIVE_INFINITY,
  async (versionKey: string) => {
    const [orgId, agentId, definitionId] = versionKey.split('/').map(Number) as [number, number, number];
    return definitions.getDefinition(orgId, agentId, definitionId);
  },
  500,
);

/**
 * The agent and resources behind a stream; `run` is the run as its admission (stream-admission.ts)
 * marked it answered: the call counts as answered from there. A call prepared while it rang
 * (`early`, prepareEarlyCall) starts with what was made ready then.
 */
async function prepareCall(
  config: CallSessionConfig,
  runRefText: string | null,
  run: RunRecord,
  log: LogFn,
  early?: Promise<EarlyCall | undefined>,
): Promise<PreparedCall> {
  const ref = runRefText ? parseRunRef(runRefText) : undefined;
  if (!ref) throw new Error(`Media stream without a valid run_ref: ${runRefText}`);
  // Published while the call greets: its ending waits for it (call-saving.ts), not its first words.
  callStartedEvents.announce(run);
  const prepared = await early;
  if (prepared && !run.transfer) {
    const call = await withCallerNotes(prepared, () => callerNotes(ref, run));
    call.runLog?.('INFO', `Prepared while the call rang: ${prepared.parts.join(', ')}`);
    return withTexts(call, ref, run);
  }
  const [setup, notes] = await Promise.all([setUpCall(config, ref, run, log), callerNotes(ref, run)]);
  return withTexts(await withCallerNotes(setup, async () => notes), ref, run);
}

/** The newest notes about the run's number (the one called, or the one that called); none without one. */
async function callerNotes(ref: RunRef, run: Pick<RunRecord, 'phone_number'>) {
  return run.phone_number
    ? memories.latestNotes(ref.organizationId, ref.agentId, run.phone_number, MEMORY_SLOTS.callerNotes)
    : [];
}

/**
 * The call's sender of texts, where its agent allows them: to the caller (the run's number: the
 * one called, or the one that called) or the agent's destination, from the agent's `from_number`
 * or the call's own number (the run's caller id; the account's when the run has none), at most
 * `max_per_call` (counted when asked, so texts asked for at once cannot pass the cap together).
 */
function withTexts(call: PreparedCall, ref: RunRef, run: RunRecord): PreparedCall {
  const plan = call.plan.sms;
  const to = plan?.destination ?? run.phone_number;
  if (!plan || !to) return call;
  let asked = 0;
  return {
    ...call,
    sendSms: async ({ body, sentBy }) => {
      const sentThisCall = asked;
      asked += 1;
      const outcome = await sendRunSms({
        ref,
        to,
        from: plan.fromNumber ?? run.from_number,
        body,
        sentBy,
        enabled: true,
        sentThisCall,
        maxPerCall: plan.maxPerCall,
      });
      if (!outcome.sent) asked -= 1;
      return outcome;
    },
  };
}

/** What of its run a call's setup reads. */
type CallOfRun = Pick<
  RunRecord,
  'mode' | 'initial_context' | 'transfer' | 'definition_id' | 'test' | 'phone_number' | 'sms_count'
> & {
  campaign?: { goal?: string | null } | null;
};

/**
 * The call's plan and providers: the agent's setup (read at most every AGENT_SETUP_REUSE_MS), then
 * the providers; the plan without the notes about the caller (read at the answer, call-answer.ts)
 * and `planWith` them; and what the agent's speech depends on besides its words, voice and
 * language (`speechSource`: the agent and its version, the definition version, the
 * text-to-speech provider and whose key it uses).
 */
async function setUpCall(
  config: CallSessionConfig,
  ref: RunRef,
  run: CallOfRun,
  log: LogFn,
): Promise<CallSetup & { speechSource: string }> {
  const { organizationId: orgId, agentId } = ref;
  const [{ agent, passages, tools, notes, model, speechKeys }, version] = await Promise.all([
    agentSetup(`${orgId}/${agentId}`),
    definitionVersion(`${orgId}/${agentId}/${run.definition_id}`),
  ]);
  if (!agent) throw new Error(`No agent for ${formatRunRef(ref)}`);
  if (!version) throw new Error(`No definition ${run.definition_id} for ${formatRunRef(ref)}`);
  // The organization's own keys first; the platform's only for what they do not cover. A platform
  // key missing (not filled in since the first deploy) fails the call here, naming the key. A
  // chat speaks no words: it needs the model only.
  const speech = run.mode !== CHAT_MODE;
  const own = organizationSpeechProviders(config.settings, speechKeys);
  // The realtime engine hears and speaks itself: its session is the call's speech both ways.
  const realtime =
    speech && usesRealtime(agent.workflow_configurations, version.workflow_definition)
      ? (await config.providers.realtime()).call()
      : undefined;
  const [stt, tts, llm] = await Promise.all([
    realtime?.listener ?? (speech ? (own.stt ?? config.providers.stt()) : undefined),
    realtime?.voice ?? (speech ? (own.tts ?? config.providers.tts()) : undefined),
    model
      ? new OpenAiChatModel({
          ...model,
          fetch: config.modelFetch ?? organizationModelFetch,
          name: "the organization's language model",
        })
      : config.providers.llm(),
  ]);
  const runLog = runLogger(ref, log);
  // A flow's variables fetched before the call are call details too.
  const fetched = await preCallVariables(
    flowOf(version.workflow_definition),
    { ...agent.template_context_variables, ...run.initial_context },
    { fetch: config.toolFetch, log: (message) => runLog('INFO', message) },
  );
  const planWith = (callerNotes: readonly Memory[]) =>
    buildCallPlan({
      agentName: agent.name,
      workflowDefinition: version.workflow_definition,
      workflowConfigurations: agent.workflow_configurations,
      templateContextVariables: agent.template_context_variables,
      initialContext: { ...run.initial_context, ...fetched },
      campaignGoal: run.campaign?.goal ?? null,
      dispositionCodes: agent.call_disposition_codes,
      passages,
      tools,
      memories: memoriesForCall({ ...notes, callerNotes }),
      // A phone call has a provider call to hand on (once); a browser or chat session does not.
      transferable: !hasSession(run.mode) && !run.transfer,
      textable: !hasSession(run.mode),
      notes: !run.test,
    });
  const call: PreparedCall = {
    plan: planWith([]),
    providers: { stt, tts, llm, ...(realtime ? { realtime } : {}) },
    organizationId: orgId,
    toolFetch: config.toolFetch,
    ...(run.test ? { test: run.test } : {}),
    runLog,
    // A note about the caller is filed under their number (read first in their next calls).
    ...(run.test
      ? {}
      : {
          saveNote: async ({ content, topic, aboutCaller }) => {
            await saveMemory(
              orgId,
              agentId,
              { content, topic, contact: aboutCaller ? run.phone_number : null },
              { by: 'agent', runId: ref.runId },
            );
          },
        }),
    flowVariables: fetched,
    ...(run.transfer?.resumed_at
      ? {
          resume: await takeBack(
            await withHandoff(ref, run.transfer, log),
            // Texts are looked for only on a run that has some (sms_count).
            run.sms_count ? textsWhileTransferred(run.transfer, await listRunSms(ref)) : [],
          ),
        }
      : {}),
  };
  const speechSource = [
    `agent ${orgId}/${agentId}`,
    agent.updated_at,
    run.definition_id,
    own.tts ? 'own key' : 'platform key',
    tts?.name ?? '',
  ].join(' ');
  return { call, planWith, speechSource };
}

/** The agent's `engine` is `realtime` (a flow's steps too: the flow brain steers the realtime brain). */
function usesRealtime(configurations: Record<string, unknown>, definition: Record<string, unknown>): boolean {
  return voiceSettings(configurations, definition).engine === 'realtime';
}

/** Greetings' speech kept for the next calls that say the same words (no call's own variables in them). */
const greetings = new GreetingCache<SpeechAhead>();

/**
 * A dialed call made ready while it rings (call-preparer.ts): its setup read, and what its first
 * words need made ready: the greeting's speech (its text is known), the model's connection; for
 * the realtime engine, its session's connection (configured on answer, then it says the greeting).
 * The speech-to-text stream is opened on answer, while the call greets. `dialed` is what the dialer
 * knows of the run (it was just dialed, so it waits for its media and has no transfer): nothing is
 * read of it here.
 */
export async function prepareEarlyCall(
  config: CallSessionConfig,
  runRef: string,
  dialed: Pick<RunRecord, 'mode' | 'initial_context' | 'definition_id' | 'phone_number'> & {
    campaign: { goal?: string | null } | null;
  },
  log: LogFn,
): Promise<EarlyCall | undefined> {
  const ref = parseRunRef(runRef);
  if (!ref || hasSession(dialed.mode)) return undefined;
  const { call, planWith, speechSource } = await setUpCall(config, ref, { ...dialed, transfer: null }, log);
  const { tts, llm, realtime } = call.providers;
  // The realtime session's greeting is the model's, in the call's own session: its connection opens
  // now (a failure fails the call at its first words, as on answer), the session on answer.
  void realtime?.connectEarly().catch(() => {});
  const greeting = tts && !realtime ? greetingSpeech(greetings, tts, call.plan, speechSource) : undefined;
  if (!realtime) void warmModel(llm);
  const parts = [
    greeting && (greeting.kept ? "the greeting's speech (kept from an earlier call)" : "the greeting's speech"),
    realtime ? "the realtime session's connection" : "the model's connection",
  ];
  return {
    call: { ...call, providers: { ...call.providers, tts: greeting?.early.provider ?? tts } },
    planWith,
    parts: parts.filter((part): part is string => Boolean(part)),
    release: async () => {
      await greeting?.early.release();
      // The session of a call never answered (a call's own closes with it: closing again is nothing).
      realtime?.close();
    },
  };
}

/**
 * The session of an admitted phone stream; `run` is what its admission wrote, `early` the call's
 * preparation while it rang, if this task made one.
 */
export function createCallSession(
  config: CallSessionConfig,
  send: (message: object) => void,
  log: LogFn,
  run: RunRecord,
  early?: Promise<EarlyCall | undefined>,
): CallPipeline {
  const session = new CallPipeline({
    prepare: (runRef) => prepareCall(config, runRef, run, log, early),
    send,
    log,
    timing: config.timing,
  });
  // What the call did not take of its preparation is closed with it.
  if (early) void session.finished.then(() => early).then((prepared) => prepared?.release());
  return session;
}

/**
 * The session of an admitted browser connection (shared/domain/browser-sessions.ts): the same loop
 * as a call, speaking with a browser (`webrtc`) or writing (`chat`), and telling the client what
 * happens as it happens.
 */
export function createBrowserSession(
  config: CallSessionConfig,
  send: (message: object) => void,
  log: LogFn,
  run: RunRecord,
): CallPipeline {
  return new CallPipeline({
    prepare: (runRef) => prepareCall(config, runRef, run, log),
    send,
    log,
    timing: config.timing,
    transport: run.mode === CHAT_MODE ? 'text' : 'audio',
    sessionEvents: true,
  });
}
