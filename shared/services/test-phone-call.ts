import { WebSocket } from 'ws';
import { LISTEN_TOKEN_SECONDS, listenUrl, purposeRef } from '../domain/live-call-access.ts';
import type { RunTest } from '../domain/agent-tests.ts';
import { formatRunRef } from '../domain/run-ref.ts';
import { testCallerNumber } from '../domain/voice-test-line.ts';
import { requiredSetting } from '../config/settings.ts';
import { nextId } from '../repositories/counters.ts';
import { mintStreamToken } from '../telephony/stream-token.ts';
import { getAgent } from './agents.ts';
import { placeCallForAgent } from './calls.ts';
import { parseArguments, parseFrame, type ChatTalk } from './test-conversation.ts';
import type { VoiceConnection } from './test-voice-conversation.ts';

/**
 * A voice case's phone call (over the local carrier: services/agent-test-runner.ts): placed as
 * every outbound call is, a phone run of the tested version taking one of the organization's
 * channels, dialed by its call-lifecycle execution through the organization's telephony provider,
 * to the number whose phone the simulated caller holds. Prepared as a campaign's dispatcher
 * prepares its calls, without the screening of a person's number (Do-not-call, calling hours): the
 * callee is the test's own caller. Returns the run's id.
 */
export async function placeTestCall(
  orgId: number,
  agentId: number,
  request: { to: string; name: string; initialContext: Record<string, unknown>; definitionId: number; test: RunTest },
): Promise<number> {
  const agent = await getAgent(orgId, String(agentId));
  const runId = await nextId('run');
  await placeCallForAgent(
    orgId,
    agent,
    { phone_number: request.to, initial_context: request.initialContext, definition_id: request.definitionId },
    null,
    new Date(),
    { prepared: { from: null, runId, alongside: [] }, test: { name: request.name, record: request.test } },
  );
  return runId;
}

/**
 * The tool calls of a live call, as its live listeners get them (docs/voice-agent.md: the `tool_call`
 * events of `…/listen`): a phone call's media stream carries audio only, so a voice case over the
 * phone hears of its tools here. Listens from when `open` is called (the call answered) until the
 * call ends or `close`.
 */
export function listenForToolCalls(ref: { orgId: number; agentId: number; runId: number }) {
  const toolCalls: ChatTalk['toolCalls'] = [];
  let ws: WebSocket | undefined;
  let closed: Promise<void> = Promise.resolve();
  return {
    toolCalls,
    async open(): Promise<void> {
      const runRef = formatRunRef({ organizationId: ref.orgId, agentId: ref.agentId, runId: ref.runId });
      const token = await mintStreamToken(purposeRef('listen', runRef), LISTEN_TOKEN_SECONDS);
      ws = new WebSocket(listenUrl(requiredSetting('MEDIA_STREAM_URL'), runRef, token));
      closed = new Promise((resolve) => ws!.once('close', () => resolve()));
      ws.on('error', () => undefined); // the close that follows ends the listening
      ws.on('message', (data, isBinary) => {
        if (isBinary) return;
        const frame = parseFrame(data);
        if (frame?.event === 'tool_call')
          toolCalls.push({
            name: String(frame.name),
            arguments: parseArguments(frame.arguments),
            result: typeof frame.result === 'string' ? frame.result : null,
          });
      });
      await new Promise<void>((resolve) => {
        ws!.once('open', () => resolve());
        ws!.once('close', () => resolve());
      });
    },
    /** Until the call's end reached the listener (its `end`), or `ms` at most. */
    async close(ms: number): Promise<void> {
      if (!ws) return;
      const timer = new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
      await Promise.race([closed, timer]);
      if (ws.readyState !== WebSocket.CLOSED) ws.terminate();
    },
  };
}

/**
 * A voice case's line over the local carrier: the handset of a test caller's number picked up at
 * `handsetsUrl` (local/carrier/handsets.ts), then the call to that number placed (placeTestCall);
 * the call's tool calls heard by a live listener from its answer on.
 */
export function phoneLine(
  handsetsUrl: string,
  request: {
    orgId: number;
    agentId: number;
    name: string;
    initialContext: Record<string, unknown>;
    definitionId: number;
    test: RunTest;
  },
) {
  const to = testCallerNumber(Math.random());
  let runId: number | null = null;
  let listener: ReturnType<typeof listenForToolCalls> | undefined;
  let listening: Promise<void> = Promise.resolve();
  const connection: VoiceConnection = {
    url: `${handsetsUrl}${encodeURIComponent(to)}`,
    begin: async () => {
      runId = await placeTestCall(request.orgId, request.agentId, { ...request, to });
      listener = listenForToolCalls({ orgId: request.orgId, agentId: request.agentId, runId });
    },
    connected: () => {
      listening = listener?.open().catch(() => undefined) ?? Promise.resolve();
    },
  };
  return {
    connection,
    /** The call's run, once placed. */
    runId: () => runId,
    /** The call's tool calls, once it has ended. */
    async toolCalls(): Promise<ChatTalk['toolCalls']> {
      await listening;
      await listener?.close(2_000);
      return listener?.toolCalls ?? [];
    },
  };
}
