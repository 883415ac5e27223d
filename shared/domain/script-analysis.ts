/**
 * The domain rules of a script analysis, around what the language model read (shared/ai/script-reading.ts):
 * every value carries the `source` it was read from, and where script and website give a fact
 * and disagree, the script wins and the difference is listed in `conflicts`.
 */
export type Source = 'script' | 'website';
export interface Sourced<T = string> {
  value: T;
  source: Source;
}

/** Facts as the model reads them from one source. */
export interface PlainFacts {
  offer: string | null;
  prices: string[];
  hours: string | null;
  address: string | null;
  faq: string[];
}

export interface Facts {
  offer: Sourced | null;
  prices: Sourced[];
  hours: Sourced | null;
  address: Sourced | null;
  faq: Sourced[];
}

/** A value as read (trimmed), with its source; blank values are dropped. */
export function sourced(value: string | null | undefined, source: Source): Sourced | null {
  const trimmed = value?.trim();
  return trimmed ? { value: trimmed, source } : null;
}

export function sourcedAll(values: readonly string[], source: Source): Sourced[] {
  return values.flatMap((value) => sourced(value, source) ?? []);
}

export function factsWithSource(facts: PlainFacts, source: Source): Facts {
  return {
    offer: sourced(facts.offer, source),
    prices: [...new Set(sourcedAll(facts.prices, source).map((price) => price.value))].map((value) => ({
      value,
      source,
    })),
    hours: sourced(facts.hours, source),
    address: sourced(facts.address, source),
    faq: sourcedAll(facts.faq, source),
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

/**
 * The FAQ facts of an analysis as a knowledge-base document of the agent made from it: one
 * paragraph a question (with the answer the texts give, when the model wrote one), so each is a
 * passage of its own; null when there are none.
 */
export function faqDocument(companyName: string, faq: readonly Sourced[]): { title: string; content: string } | null {
  const questions = [...new Set(faq.map((item) => item.value.trim()).filter(Boolean))];
  if (!questions.length) return null;
  return { title: `Questions customers ask ${companyName}`.slice(0, 255), content: questions.join('\n\n') };
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
