/**
 * Backchannels: the short words a listener says while the other one talks ("mhm", "yeah", "ok",
 * "right") to show they follow, not to take the turn. Said over the agent they do not stop it
 * (media/src/call/caller-turns.ts); they go into the transcript. Each language of the agent's
 * phrases has its own list; an agent replaces it with `workflow_configurations.turn_taking.backchannels`.
 * Pure.
 */

export const BACKCHANNELS: Readonly<Record<string, readonly string[]>> = {
  en: [
    'mhm',
    'mm',
    'mmhm',
    'mm-hmm',
    'uh-huh',
    'uh huh',
    'hmm',
    'yeah',
    'yep',
    'yes',
    'ok',
    'okay',
    'alright',
    'all right',
    'right',
    'sure',
    'i see',
    'got it',
    'cool',
  ],
  pl: ['mhm', 'aha', 'tak', 'no tak', 'dobrze', 'okej', 'ok', 'jasne', 'rozumiem', 'właśnie'],
  de: ['mhm', 'aha', 'ja', 'genau', 'okay', 'ok', 'richtig', 'stimmt', 'klar', 'verstehe'],
  fr: ['mhm', 'oui', 'ouais', "d'accord", 'ok', 'okay', 'je vois', 'ah oui', 'voilà', 'bien sûr'],
  it: ['mhm', 'sì', 'si', 'certo', 'ok', 'okay', 'esatto', 'capisco', 'va bene', 'ecco'],
  es: ['mhm', 'sí', 'si', 'vale', 'claro', 'ok', 'okay', 'ajá', 'entiendo', 'de acuerdo', 'ya'],
};

/** The backchannels of a BCP 47 language (`pl-PL` is Polish); English for a language without a list. */
export function backchannelsFor(language: string): readonly string[] {
  return BACKCHANNELS[language.toLowerCase().split('-')[0]!] ?? BACKCHANNELS.en!;
}

const tokens = (text: string): string[] =>
  text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}'\s-]/gu, ' ')
    .split(/\s+/)
    .filter(Boolean);

/**
 * The words are backchannels only: one or more of `backchannels` one after another ("yeah",
 * "ok, right", "mhm mhm"), punctuation and case aside. Nothing said is not a backchannel.
 */
/** Each list's phrases as words, made once: a call asks with its agent's one list at every result over the agent. */
const phrasesOf = new WeakMap<readonly string[], string[][]>();

function phrasesIn(backchannels: readonly string[]): string[][] {
  let phrases = phrasesOf.get(backchannels);
  if (!phrases) {
    phrases = backchannels.map(tokens).filter((phrase) => phrase.length > 0);
    phrasesOf.set(backchannels, phrases);
  }
  return phrases;
}

export function isBackchannel(text: string, backchannels: readonly string[]): boolean {
  const words = tokens(text);
  if (!words.length) return false;
  const phrases = phrasesIn(backchannels);
  // reachable[i]: the first i words are a sequence of backchannels.
  const reachable = [true, ...words.map(() => false)];
  for (let at = 0; at < words.length; at++) {
    if (!reachable[at]) continue;
    for (const phrase of phrases)
      if (phrase.every((word, offset) => words[at + offset] === word)) reachable[at + phrase.length] = true;
  }
  return reachable[words.length]!;
}
