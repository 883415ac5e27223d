/**
 * TwiML as the local Twilio reads it: what a call's (or a callback's) document asks for. Only
 * the verbs the platform writes are understood: `<Connect><Stream>` with `<Parameter>`s, `<Say>`,
 * `<Reject>`, `<Hangup>`, and `<Dial>` of one `<Number>` or `<Sip>`.
 */

const unescapeXml = (text: string) =>
  text
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

function attributes(tag: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const match of tag.matchAll(/([A-Za-z]+)="([^"]*)"/g)) found[match[1]!] = unescapeXml(match[2]!);
  return found;
}

/** A `<Dial>` of one `<Number>` or `<Sip>` (a transfer), with what Twilio reads of it. */
export interface TwimlDial {
  to: string;
  callerId: string | null;
  timeoutSeconds: number;
  action: string | null;
  /** `<Number url>` / `<Sip url>`: TwiML for the person answering before the bridge (a whisper). */
  whisperUrl: string | null;
  machineDetection: boolean;
  sendDigits: string | null;
}

/** What a TwiML document asks for: a `<Connect><Stream>`, a `<Dial>`, or words and a hang-up / rejection. */
export function readTwiml(twiml: string): {
  stream: { url: string; parameters: Record<string, string> } | null;
  say: string[];
  reject: boolean;
  hangup: boolean;
  dial: TwimlDial | null;
} {
  const streamTag = /<Stream\b[^>]*>/.exec(twiml)?.[0];
  const parameters: Record<string, string> = {};
  for (const match of twiml.matchAll(/<Parameter\b[^>]*\/?>/g)) {
    const { name, value } = attributes(match[0]);
    if (name) parameters[name] = value ?? '';
  }
  const say = [...twiml.matchAll(/<Say\b[^>]*>([^<]*)<\/Say>/g)].map((match) => unescapeXml(match[1]!));
  const dialTag = /<Dial\b[^>]*>/.exec(twiml)?.[0];
  const noun = /<(Number|Sip)\b([^>]*)>([^<]*)<\/(?:Number|Sip)>/.exec(twiml);
  const dialed = dialTag ? attributes(dialTag) : {};
  const nounAttributes = noun ? attributes(noun[2]!) : {};
  return {
    stream: streamTag ? { url: attributes(streamTag).url ?? '', parameters } : null,
    say,
    reject: /<Reject\b/.test(twiml),
    hangup: /<Hangup\b/.test(twiml),
    dial:
      dialTag && noun
        ? {
            to: unescapeXml(noun[3]!.trim()),
            callerId: dialed.callerId ?? null,
            timeoutSeconds: Number(dialed.timeout ?? 30),
            action: dialed.action ?? null,
            whisperUrl: nounAttributes.url ?? null,
            machineDetection: nounAttributes.machineDetection === 'Enable',
            sendDigits: nounAttributes.sendDigits ?? null,
          }
        : null,
  };
}

export type Twiml = ReturnType<typeof readTwiml>;
