import { setTimeout as sleep } from 'node:timers/promises';
import { WebSocket } from 'ws';
import type { CallerTurn } from '../domain/agent-test-runs.ts';

/** A chat session as `POST /agents/{agent_id}/conversations` answers it. */
export interface ChatSession {
  url: string;
  run_ref: string;
  token: string;
}

export interface ChatTalk {
  /** What passed over the transport: the caller's messages, the agent's answers (its sentences joined). */
  transcript: { role: 'user' | 'assistant'; text: string }[];
  toolCalls: { name: string; arguments: Record<string, unknown>; result: string | null }[];
  endedBy: 'agent' | 'caller' | 'turn_limit';
  callerTurns: number;
  /** Per caller turn: milliseconds until the agent's first words; null for a turn it did not answer. */
  latencies: (number | null)[];
}

/** The conversation went past its time: the case fails, the session is closed. */
export class ConversationTimeoutError extends Error {
  constructor(seconds: number) {
    super(`The conversation took longer than its ${seconds} s`);
    this.name = 'ConversationTimeoutError';
  }
}

/** The media service refused the session (no channel free, a credential refused). */
export class SessionRefusedError extends Error {
  constructor(code: number, reason: string) {
    super(`The chat session was refused: ${code} ${reason}`);
    this.name = 'SessionRefusedError';
  }
}

/** The mark a session sends once the agent hangs up (media/src/streams/websocket-server.ts HANGUP_MARK). */
const AGENT_HANGUP_MARK = 'hangup';
/** How long a caller who said goodbye waits for the agent to hang up before it ends the chat itself. */
const GOODBYE_GRACE_MS = 1500;

/** A tool call's arguments as the session sends them (a JSON object's text); anything else is no arguments. */
export const parseArguments = (text: unknown): Record<string, unknown> => {
  const parsed = parseJson(String(text ?? '{}'));
  return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
};

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
};

/** A session's WebSocket frame (a JSON object); undefined for one that does not parse, which a client ignores. */
export function parseFrame(data: unknown): Record<string, unknown> | undefined {
  const parsed = parseJson(String(data));
  return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
    ? (parsed as Record<string, unknown>)
    : undefined;
}

/**
 * Talks with the agent over a chat session (docs/browser-sessions.md), as a browser's client
 * library does: the start frame with the credential, marks echoed at once, one message per caller
 * turn once the agent's answer is complete (its mark). `caller` gives each turn; the talk ends
 * when the agent hangs up, the caller hangs up (its goodbye answered), or after `maxTurns`
 * caller turns (then `stop`, as a client ends a chat). Past `timeoutSeconds` the session is
 * closed and ConversationTimeoutError thrown: a case that hangs fails, it never waits forever.
 */
export async function talkOverChat(
  session: ChatSession,
  options: {
    maxTurns: number;
    timeoutSeconds: number;
    caller: (transcript: ChatTalk['transcript'], turn: number) => Promise<CallerTurn>;
  },
): Promise<ChatTalk> {
  const ws = new WebSocket(session.url);
  const talk: ChatTalk = { transcript: [], toolCalls: [], endedBy: 'agent', callerTurns: 0, latencies: [] };
  let answer = '';
  let sentAt: number | undefined;
  let connected = false;
  let wake: (() => void) | undefined;
  let marks = 0;
  let agentHangingUp = false;
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => {
      resolve({ code, reason: String(reason) });
      wake?.();
    }),
  );
  let isClosed = false;
  void closed.then(() => (isClosed = true));
  ws.on('error', () => undefined); // the close that follows ends the talk
  ws.on('message', (data) => {
    const frame = parseFrame(data);
    if (!frame) return;
    connected = true;
    if (frame.event === 'text') {
      if (sentAt !== undefined) {
        talk.latencies[talk.latencies.length - 1] = Date.now() - sentAt;
        sentAt = undefined;
      }
      answer += `${answer ? ' ' : ''}${String(frame.text ?? '').trim()}`;
    } else if (frame.event === 'tool_call') {
      talk.toolCalls.push({
        name: String(frame.name),
        arguments: parseArguments(frame.arguments),
        result: typeof frame.result === 'string' ? frame.result : null,
      });
    } else if (frame.event === 'mark') {
      ws.send(JSON.stringify(frame));
      // The agent hangs up: its last words are out, the socket closes next.
      if ((frame.mark as { name?: unknown } | undefined)?.name === AGENT_HANGUP_MARK) agentHangingUp = true;
      else marks += 1;
      wake?.();
    }
  });

  const deadline = Date.now() + options.timeoutSeconds * 1000;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), options.timeoutSeconds * 1000);
  });
  /** Until the agent's answer is complete (a mark after `seen`) or the session closed. */
  const nextMark = async (seen: number): Promise<void> => {
    while (marks <= seen && !isClosed) {
      const woken = new Promise<void>((resolve) => (wake = resolve));
      if ((await Promise.race([woken, timedOut])) === 'timeout' || Date.now() >= deadline) {
        ws.terminate();
        throw new ConversationTimeoutError(options.timeoutSeconds);
      }
    }
  };
  /** The caller ends the chat as a client does: `stop`, then the socket closed (the run completes). */
  const stop = () => {
    ws.send(JSON.stringify({ event: 'stop' }));
    ws.close(1000, 'caller hung up');
  };
  const flushAnswer = () => {
    if (answer) talk.transcript.push({ role: 'assistant', text: answer });
    answer = '';
  };

  try {
    await Promise.race([
      new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject)),
      timedOut.then(() => {
        throw new ConversationTimeoutError(options.timeoutSeconds);
      }),
    ]);
    ws.send(
      JSON.stringify({
        event: 'start',
        start: { customParameters: { run_ref: session.run_ref, stream_token: session.token } },
      }),
    );
    await nextMark(0);
    let hangingUp = false;
    for (;;) {
      flushAnswer();
      if (hangingUp && !isClosed && !agentHangingUp) await Promise.race([closed, sleep(GOODBYE_GRACE_MS), timedOut]);
      if (isClosed || agentHangingUp) {
        const { code, reason } = await Promise.race([closed, timedOut.then(() => ({ code: 0, reason: '' }))]);
        if (!connected && code >= 4000) throw new SessionRefusedError(code, reason);
        talk.endedBy = 'agent';
        break;
      }
      if (hangingUp || talk.callerTurns >= options.maxTurns) {
        talk.endedBy = hangingUp ? 'caller' : 'turn_limit';
        stop();
        break;
      }
      const turn = await options.caller(talk.transcript, talk.callerTurns + 1);
      if (!turn.say.trim()) {
        talk.endedBy = 'caller';
        stop();
        break;
      }
      hangingUp = turn.hang_up;
      talk.callerTurns += 1;
      talk.transcript.push({ role: 'user', text: turn.say.trim() });
      const seen = marks;
      sentAt = Date.now();
      talk.latencies.push(null);
      ws.send(JSON.stringify({ event: 'message', text: turn.say.trim().slice(0, 4000) }));
      await nextMark(seen);
    }
    flushAnswer();
    return talk;
  } finally {
    clearTimeout(timer);
    // A talk that ended by itself closed the socket (or is closing it); a failed one is cut.
    if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) ws.terminate();
  }
}
