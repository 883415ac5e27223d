/**
 * The tools the model calls during an answer: the built-in ones (disposition, information, end of
 * call, transfer, keys) act on the call; the agent's HTTP tools are executed (tool-executor.ts).
 */
import type { TransferDestination } from '../../../shared/schemas/call-transfer.ts';
import { executeHttpTool } from '../agent/tool-executor.ts';
import { mockedToolAnswer } from '../../../shared/domain/agent-tests.ts';
import { keyTones, KEY_SEQUENCE } from '../audio/dtmf.ts';
import { encodeMulaw } from '../audio/mulaw.ts';
import type { Answer } from './brain.ts';
import type { LogFn, PreparedCall } from './call-types.ts';
import type { CallTexts } from './call-texts.ts';
import { isRecord } from './media-stream-frames.ts';

export interface ToolCall {
  name: string;
  arguments: string;
}

/** What the tools do to the call beyond the answer. */
export interface ToolEffects {
  /** What the model saved (`gathered_context`). */
  gathered: Record<string, unknown>;
  /** The call is ending: nothing new starts (the answer's hang-up ends it). */
  closing(): void;
  /** Notes the transfer to carry out after the handoff phrase (handoff.ts). */
  transfer(destination: TransferDestination, reason: string): Promise<void>;
  /** Texts to the caller (`send_sms`). */
  texts: CallTexts;
  log: LogFn;
  runRef(): string | null;
}

export class AgentTools {
  constructor(
    private readonly call: PreparedCall,
    private readonly effects: ToolEffects,
  ) {}

  /** Runs one tool call of `answer`; its result for the model. `waiting` starts the filler for a slow tool. */
  async run(answer: Answer, toolCall: ToolCall, waiting: () => { cancel: () => void }): Promise<string> {
    const { call, effects } = this;
    const args = parseObject(toolCall.arguments);
    switch (toolCall.name) {
      case 'set_call_disposition': {
        const code = String(args.code ?? '');
        if (!call.plan.dispositionCodes.includes(code))
          return JSON.stringify({ error: `code must be one of ${call.plan.dispositionCodes.join(', ')}` });
        effects.gathered.call_disposition = code;
        call.runLog?.('INFO', `Disposition chosen by the agent: ${code}`);
        return JSON.stringify({ ok: true });
      }
      case 'save_information': {
        const key = String(args.key ?? '').trim();
        if (!/^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(key) || key === 'call_disposition')
          return JSON.stringify({ error: 'key must be a snake_case name other than call_disposition' });
        effects.gathered[key] = args.value;
        return JSON.stringify({ ok: true });
      }
      case 'end_call':
        answer.hangUp();
        effects.closing();
        return JSON.stringify({ ok: true });
      case 'transfer_call': {
        const destination = call.plan.transfer?.destinations.find((item) => item.name === args.destination);
        if (!destination)
          return JSON.stringify({
            error: `destination must be one of ${call.plan.transfer?.destinations.map((item) => item.name).join(', ') ?? '(none: this call cannot be transferred)'}`,
          });
        await effects.transfer(destination, String(args.reason ?? ''));
        answer.say(call.plan.phrases.transferring);
        answer.hangUp();
        effects.closing();
        return JSON.stringify({ ok: true, transferring_to: destination.name });
      }
      case 'send_digits': {
        const keys = String(args.digits ?? '');
        if (!KEY_SEQUENCE.test(keys))
          return JSON.stringify({ error: 'digits must be 1 to 32 of 0-9, *, #, A-D, and , for a pause' });
        // In-band tones in the agent's audio, in its turn: heard by the menu like a keypad's.
        answer.say(`[keys ${keys}]`, async function* () {
          yield encodeMulaw(keyTones(keys));
        });
        call.runLog?.('INFO', `Keys sent by the agent: ${keys}`);
        return JSON.stringify({ ok: true, sent: keys });
      }
      case 'save_note': {
        const content = String(args.content ?? '')
          .trim()
          .slice(0, 2000);
        if (!content || !call.saveNote) return JSON.stringify({ error: 'content must be a sentence to remember' });
        await call.saveNote({
          content,
          topic: String(args.topic ?? '').slice(0, 255),
          aboutCaller: args.about_caller !== false,
        });
        call.runLog?.('INFO', `Note saved by the agent: ${content.slice(0, 300)}`);
        return JSON.stringify({ ok: true });
      }
      case 'send_sms': {
        // The outcome, or why not, in words the model can tell the caller.
        const outcome = await effects.texts.send(args, 'agent');
        return JSON.stringify(
          outcome.sent
            ? { ok: true, to: outcome.sms.to, status: outcome.sms.status, segments: outcome.sms.segments }
            : { error: outcome.reason, refused: outcome.refusal },
        );
      }
    }
    const tool = call.plan.httpTools.get(toolCall.name);
    if (!tool) return JSON.stringify({ error: `No tool named ${toolCall.name}` });
    const mocked = call.test && mockedToolAnswer(call.test, tool.name);
    if (mocked !== undefined) {
      call.runLog?.(
        'INFO',
        `Tool ${tool.name} answered by the test's mock (${toolCall.arguments.slice(0, 300)}): ${mocked.slice(0, 300)}`,
      );
      return mocked;
    }
    const filler = waiting(); // a slow tool is a wait too
    const result = await executeHttpTool(call.organizationId, tool, toolCall.arguments, {
      fetch: call.toolFetch,
    }).finally(() => filler.cancel());
    call.runLog?.('INFO', `Tool ${tool.name} called with ${toolCall.arguments.slice(0, 300)}: ${result.slice(0, 300)}`);
    effects.log('info', 'tool called', { runRef: effects.runRef(), tool: tool.name });
    return result;
  }
}

/** A tool call's arguments as an object (none when they are not one). */
export function parseObject(json: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(json || '{}');
    return isRecord(parsed) ? parsed : {};
  } catch {
    return {};
  }
}
