/**
 * Reading a call script and a company website, with simple documented heuristics: the script gives
 * the call flow (first line = greeting; questions and list items = steps in order; "if they
 * say …: …" lines = objection answers; lines about recording or personal data = mandatory
 * phrases; what the questions ask for = data to collect); both give facts (prices, opening hours,
 * address, offer, FAQ) by pattern. When both give a fact and they differ, the script wins and the
 * difference is listed in `conflicts`. Every value carries its `source`.
 */
export type Source = 'script' | 'website';
export interface Sourced<T = string> {
  value: T;
  source: Source;
}

const PRICE = /\d[\d\s.,]*\s?(?:PLN|zł|USD|EUR|€|\$)/gi;
const HOURS =
  /\b(?:mon(?:day)?|tue(?:sday)?|pn|pon(?:iedziałek)?)\b[^.\n]{0,40}?\d{1,2}(?:[:.]\d{2})?\s?[-–]\s?\d{1,2}(?:[:.]\d{2})?/i;
const ADDRESS = /\b(?:ul\.|al\.|street|st\.|avenue|ave\.)\s?[^,\n]{2,60}(?:,\s?[^,\n.]{2,40})?/i;
const MANDATORY = /(record|nagryw|data protection|personal data|gdpr|rodo|dane osobowe|privacy)/i;
const OBJECTION = /^(?:if|when|jeśli|jeżeli|gdy)\b(.+?)[:–-]\s*(.+)$/i;
const DATA_WORDS = [
  'name',
  'email',
  'phone',
  'address',
  'date of birth',
  'budget',
  'company',
  'imię',
  'nazwisko',
  'telefon',
  'adres',
];

const lines = (text: string) =>
  text
    .split(/\r?\n/)
    .map((line) => line.replace(/^\s*(?:[-*•]|\d+[.)])\s*/, '').trim())
    .filter(Boolean);

export interface Facts {
  offer: Sourced | null;
  prices: Sourced[];
  hours: Sourced | null;
  address: Sourced | null;
  faq: Sourced[];
}

export function factsFrom(text: string, source: Source, title?: string): Facts {
  const firstMatch = (pattern: RegExp) => pattern.exec(text)?.[0]?.trim();
  const hours = firstMatch(HOURS);
  const address = firstMatch(ADDRESS);
  const prices = [...new Set((text.match(PRICE) ?? []).map((price) => price.replace(/\s+/g, ' ').trim()))];
  const faq =
    source === 'website'
      ? lines(text)
          .filter((line) => line.endsWith('?'))
          .slice(0, 20)
      : [];
  return {
    offer: title ? { value: title, source } : null,
    prices: prices.map((value) => ({ value, source })),
    hours: hours ? { value: hours, source } : null,
    address: address ? { value: address, source } : null,
    faq: faq.map((value) => ({ value, source })),
  };
}

export function callFlowFrom(script: string) {
  const all = lines(script);
  const objections = all.flatMap((line) => {
    const match = OBJECTION.exec(line);
    return match ? [{ objection: match[1]!.trim(), answer: match[2]!.trim(), source: 'script' as const }] : [];
  });
  const steps = all
    .slice(1)
    .filter(
      (line) => !OBJECTION.test(line) && !MANDATORY.test(line) && (line.endsWith('?') || /^(ask|zapytaj)/i.test(line)),
    );
  const wanted = DATA_WORDS.filter((word) => steps.some((step) => step.toLowerCase().includes(word)));
  return {
    greeting: all[0] ? { value: all[0], source: 'script' as const } : null,
    steps: steps.map((value) => ({ value, source: 'script' as const })),
    objections,
    mandatory_phrases: all
      .filter((line) => MANDATORY.test(line))
      .map((value) => ({ value, source: 'script' as const })),
    data_to_collect: wanted.map((value) => ({ value, source: 'script' as const })),
  };
}

export interface Conflict {
  field: string;
  script_value: string;
  website_value: string;
}

/** The script's facts over the website's, field by field, and where they disagree. */
export function mergeFacts(script: Facts, website: Facts | null): { facts: Facts; conflicts: Conflict[] } {
  if (!website) return { facts: script, conflicts: [] };
  const conflicts: Conflict[] = [];
  const pick = (field: 'offer' | 'hours' | 'address') => {
    const fromScript = script[field];
    const fromSite = website[field];
    if (fromScript && fromSite && fromScript.value.toLowerCase() !== fromSite.value.toLowerCase()) {
      conflicts.push({ field, script_value: fromScript.value, website_value: fromSite.value });
    }
    return fromScript ?? fromSite;
  };
  const scriptPrices = new Set(script.prices.map((price) => price.value));
  if (
    script.prices.length &&
    website.prices.length &&
    !website.prices.every((price) => scriptPrices.has(price.value))
  ) {
    conflicts.push({
      field: 'prices',
      script_value: script.prices.map((price) => price.value).join('; '),
      website_value: website.prices.map((price) => price.value).join('; '),
    });
  }
  return {
    facts: {
      offer: pick('offer'),
      hours: pick('hours'),
      address: pick('address'),
      prices: script.prices.length ? script.prices : website.prices,
      faq: [...script.faq, ...website.faq],
    },
    conflicts,
  };
}

/** Visible text and title of an HTML page (scripts and styles dropped, block ends as new lines). */
export function pageText(html: string): { title?: string; text: string } {
  const title =
    /<title[^>]*>([^<]*)<\/title>/i.exec(html)?.[1]?.trim() ||
    /<h1[^>]*>([\s\S]*?)<\/h1>/i
      .exec(html)?.[1]
      ?.replace(/<[^>]+>/g, '')
      .trim();
  const text = html
    .replace(/<(script|style|noscript)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<\/(p|div|li|h[1-6]|tr|br|section|article)>|<br\s*\/?>/gi, '\n')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/[ \t]+/g, ' ')
    .replace(/\n\s*/g, '\n')
    .trim();
  return { title: title || undefined, text };
}
