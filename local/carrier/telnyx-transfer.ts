import { DETECTION_MS } from './callee-directory.ts';
import { waitUnlessAborted, type SimulatedCarrier } from './carrier.ts';
import { isLoopback } from './http.ts';
import { newTelnyxCall, stringOr, type TelnyxCall } from './telnyx-call.ts';

/**
 * The local Telnyx's `transfer` command: a new leg to the destination, its events tagged with
 * `target_leg_client_state`. Busy or unanswered (`timeout_secs`), it hangs up and the caller's
 * call stays up for the platform. Answered: answering-machine detection when asked (a machine is
 * reported, then hung up by the platform), `audio_url` played to the person (its words decoded, as
 * the person hears them), the legs bridged, then both hang up. `sendEvent` and `hangUpWith` are
 * the wire's Call Control events; `added` takes the new leg among the wire's calls.
 */
export function telnyxTransfer(deps: {
  carrier: SimulatedCarrier;
  sendEvent: (call: TelnyxCall, eventType: string, extra?: Record<string, unknown>) => Promise<unknown>;
  hangUpWith: (call: TelnyxCall, cause: string) => Promise<void>;
  added: (leg: TelnyxCall) => void;
}) {
  const { carrier, sendEvent, hangUpWith } = deps;
  return function transferLeg(call: TelnyxCall, body: Record<string, unknown>): Promise<void> {
    const leg: TelnyxCall = {
      ...newTelnyxCall(call.account, {
        to: String(body.to),
        from: String(body.from ?? call.to),
        direction: 'outgoing',
        state: 'bridging',
        hangupSource: 'callee',
      }),
      // A leg of the caller's call session.
      sessionId: call.sessionId,
      webhookUrl: stringOr(body.webhook_url, call.webhookUrl),
      clientState: stringOr(body.target_leg_client_state, null),
      detectMachine: body.answering_machine_detection !== undefined && body.answering_machine_detection !== 'disabled',
    };
    deps.added(leg);
    return carrier.transfer(
      call,
      {
        to: leg.to,
        callerId: null,
        timeoutSeconds: Number(body.timeout_secs ?? 30),
        digits: stringOr(body.send_digits_on_answer, null),
      },
      {
        ringing: () => sendEvent(leg, 'call.initiated').then(() => undefined),
        async answered(outcome, record) {
          leg.state = 'active';
          await sendEvent(leg, 'call.answered');
          if (outcome === 'voicemail' && leg.detectMachine) {
            await waitUnlessAborted(DETECTION_MS.verdict, leg.hangUp.signal);
            await sendEvent(leg, 'call.machine.detection.ended', { result: 'machine' });
            await waitUnlessAborted(carrier.callSeconds * 1000, leg.hangUp.signal);
            record.status = 'machine';
            leg.hangupSource = 'caller';
            return false;
          }
          if (typeof body.audio_url === 'string' && isLoopback(body.audio_url))
            record.whisper_heard = (await carrier.play(call, body.audio_url)) ?? record.whisper_heard;
          return true;
        },
        async bridged(record) {
          await sendEvent(call, 'call.bridged');
          await sendEvent(leg, 'call.bridged');
          record.status = 'bridged';
        },
        async over(outcome) {
          if (outcome === 'busy' || outcome === 'no-answer')
            return hangUpWith(leg, outcome === 'busy' ? 'user_busy' : 'timeout');
          await hangUpWith(leg, 'normal_clearing');
          if (outcome !== 'bridged') return;
          // The person hangs up: a bridge ends both legs.
          call.hangupSource = 'callee';
          call.hangUp.abort();
        },
      },
    );
  };
}
