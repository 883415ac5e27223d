import type { CarrierCall, SimulatedCarrier, TransferLine } from './carrier.ts';
import { readTwiml, type Twiml, type TwimlDial } from './twiml.ts';
import type { TwilioAccount } from './twilio-accounts.ts';
import { twilioSid } from './twilio-rest.ts';

/** What TwiML that replaces a call's stream reads and sets of the call. */
export interface RedirectableCall extends CarrierCall {
  account: TwilioAccount;
  stream: Twiml['stream'];
  /** Set when new TwiML replaces the call's (a Calls update): the stream ends, the new TwiML plays. */
  redirect: AbortController;
  /** The TwiML that replaced the call's, once it did: what it says before the call ends. */
  replacedBy: Twiml | null;
}

/**
 * The local Twilio's TwiML after a call's stream: what replaced it (a Calls update) plays, `<Say>`
 * at Twilio's text-to-speech pace or a `<Dial>` (a transfer, with its whisper URL and its action).
 * `signedPost` sends a signed webhook to the platform; `converse` streams the call to the platform
 * again when the action's TwiML says `<Connect><Stream>`.
 */
export function twilioDial<Call extends RedirectableCall>(deps: {
  carrier: SimulatedCarrier;
  signedPost: (account: TwilioAccount, url: string, params: Record<string, string>) => Promise<Response | undefined>;
  converse: (call: Call) => Promise<unknown>;
}) {
  const { carrier, signedPost, converse } = deps;

  /** What replaced TwiML does: words at Twilio's text-to-speech pace, or a `<Dial>` (dialAway); then the call ends. */
  async function playReplacedTwiml(call: Call, twiml = call.replacedBy): Promise<void> {
    if (twiml?.dial && !call.hangUp.signal.aborted) return dialAway(call, twiml.dial);
    const said = twiml?.say.join(' ') ?? '';
    if (!said || call.hangUp.signal.aborted) return;
    await carrier.say(call, said);
  }

  /**
   * A `<Dial>` from a live call (a transfer), as Twilio runs it: answered, the destination's
   * whisper URL is asked for TwiML (signed, with `AnsweredBy` when `machineDetection` is on) and
   * the person hears its `<Say>` (a `<Hangup>` there drops the destination). The `action` URL gets
   * DialCallStatus and DialCallDuration, and its TwiML plays to the caller before the call ends.
   */
  function dialAway(call: Call, dial: TwimlDial): Promise<void> {
    const legSid = twilioSid('CA');
    const line: TransferLine = {
      ringing: async () => {},
      async answered(outcome, record) {
        if (!dial.whisperUrl) return true;
        const whisper = await signedPost(call.account, dial.whisperUrl, {
          AccountSid: call.account.sid,
          CallSid: legSid,
          ParentCallSid: call.id,
          To: dial.to,
          From: dial.callerId ?? call.from,
          ...(dial.machineDetection ? { AnsweredBy: outcome === 'voicemail' ? 'machine_start' : 'human' } : {}),
        });
        const heard = whisper?.ok ? readTwiml(await whisper.text()) : null;
        record.whisper_heard = heard?.say.join(' ') || null;
        if (record.whisper_heard) await carrier.speak(call, record.whisper_heard);
        // A `<Hangup>` in the whisper drops the destination (a machine): nobody is bridged.
        return Boolean(heard && !heard.hangup);
      },
      bridged: async () => {},
      async over(outcome, seconds, record) {
        const status = outcome === 'busy' || outcome === 'no-answer' ? outcome : 'completed';
        record.status = status;
        if (dial.action) await dialAction(call, dial.action, { legSid, status, seconds });
      },
    };
    return carrier.transfer(
      call,
      { to: dial.to, callerId: dial.callerId, timeoutSeconds: dial.timeoutSeconds, digits: dial.sendDigits },
      line,
    );
  }

  /** The `<Dial>`'s action: its outcome, and the TwiML the caller hears next (or a new stream to the platform). */
  async function dialAction(
    call: Call,
    action: string,
    dialed: { legSid: string; status: string; seconds: number },
  ): Promise<void> {
    const next = await signedPost(call.account, action, {
      AccountSid: call.account.sid,
      CallSid: call.id,
      DialCallSid: dialed.legSid,
      DialCallStatus: dialed.status,
      DialCallDuration: String(dialed.seconds),
      To: call.to,
      From: call.from,
    });
    if (!next?.ok) return;
    const twiml = readTwiml(await next.text());
    if (twiml.stream && !call.hangUp.signal.aborted) {
      // `<Connect><Stream>`: the caller is connected to the platform's media again.
      call.stream = twiml.stream;
      call.redirect = new AbortController();
      call.replacedBy = null;
      await converse(call).catch((error: unknown) => carrier.logFailure('Local Twilio', 'media stream failed', error));
      await playReplacedTwiml(call);
    } else if (!twiml.dial) await playReplacedTwiml(call, twiml);
  }

  return { playReplacedTwiml };
}
