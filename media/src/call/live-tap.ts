import type { FlowPathStep } from '../../../shared/domain/flows.ts';
import type { LogFn } from './call-types.ts';

/**
 * What a listener of a live call receives: `media` frames of each side (`track` `inbound` for the
 * caller, `outbound` for the agent: 8 kHz mu-law, base64, `timestamp` in ms of the call), the
 * `transcript`, `tool_call`, `knowledge`, `transfer` and `control` events, and `end` last.
 */
export type LiveEvent = { event: string } & Record<string, unknown>;

/** A command of the control API (shared/schemas/live-calls.ts). */
export type LiveCommand =
  | { type: 'say'; text: string; end_call?: boolean }
  | { type: 'add_message'; content: string; respond?: boolean }
  | { type: 'end'; say?: string }
  | { type: 'transfer'; destination: string }
  | { type: 'send_sms'; template?: string; text?: string }
  /** Not the API's: the platform's news of a text from the caller (shared/services/inbound-texts.ts). */
  | { type: 'caller_text'; sms_id: string; from: string; body: string };

/**
 * The live tap of a call: its listeners (the listen endpoint, media/src/live-call-server.ts) follow it
 * as it happens, and a browser or chat session's own client gets the same events (`sessionEvents`;
 * never a phone provider).
 */
export class LiveTap {
  private readonly listeners = new Set<(event: LiveEvent) => void>();

  constructor(
    private readonly options: { sessionEvents: boolean; send: (event: LiveEvent) => void; log: LogFn },
    private readonly runRef: () => string | null,
  ) {}

  /** Someone listens: worth encoding the audio for. */
  get listening(): boolean {
    return this.listeners.size > 0;
  }

  /** Follows the call (LiveEvent) until it ends; returns the way to stop following. */
  observe(listener: (event: LiveEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** What happened, for a browser or chat session's client and the call's listeners. */
  sessionEvent(event: LiveEvent): void {
    if (this.options.sessionEvents) this.options.send(event);
    this.notify(event);
  }

  /** For the listeners only (audio, control commands, the end). */
  notify(event: LiveEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.options.log('warn', 'a listener of the call failed', { runRef: this.runRef(), error: String(error) });
      }
    }
  }

  /** The call ended: its listeners hear it last. */
  end(event: LiveEvent): void {
    this.notify(event);
    this.listeners.clear();
  }
}

/** The `flow_step` a listener joining a flow's call hears first: the step the call is in, and how it got there. */
export function currentStepEvent(path: readonly FlowPathStep[] | null): LiveEvent | null {
  const current = path?.at(-1);
  if (!path || !current) return null;
  const before = path.at(-2);
  return {
    event: 'flow_step',
    node_id: current.node_id,
    name: current.name,
    from: before?.node_id ?? null,
    reason: before?.reason ?? null,
  };
}
