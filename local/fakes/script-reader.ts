/**
 * How the local fake model "reads" a call script (the `script_analysis` structured answer of
 * shared/ai/script-reading.ts), with simple documented rules so `npm start` and the tests are
 * deterministic offline (README "Local fakes"): first line of the script = greeting; questions
 * and "Ask …" lines = steps in order; `If "<answer>": …` lines (the answer quoted) = a branch of the
 * question before them; other "If they say …: …" lines = objection answers; lines about
 * recording or personal data = mandatory phrases; data words the steps ask for = data to collect;
 * from each text: prices, opening hours and address by pattern, the website's title as the offer
 * and its questions as FAQ.
 */
import type { PlainFacts } from '../../shared/domain/script-analysis.ts';
import type { ScriptReading } from '../../shared/ai/script-reading.ts';

const PRICE = /\d[\d\s.,]*\s?(?:PLN|zł|USD|EUR|€|\$)/gi;
const HOURS =
  /\b(?:mon(?:day)?|tue(?:sday)?|pn|pon(?:iedziałek)?)\b[^.\n]{0,40}?\d{1,2}(?:[:.]\d{2})?\s?[-–]\s?\d{1,2}(?:[:.]\d{2})?/i;
const ADDRESS = /\b(?:ul\.|al\.|street|st\.|avenue|ave\.)\s?[^,\n]{2,60}(?:,\s?[^,\n.]{2,40})?/i;
const MANDATORY = /(record|nagryw|data protection|personal data|gdpr|rodo|dane osobowe|privacy)/i;
const BRANCH =
  /^(?:if|when|jeśli|jeżeli|gdy)\s+(?:(?:they|the caller|the customer)\s+says?\s+)?"([^"]+)"\s*[:–-]\s*(.+)$/i;
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
const POLISH = /[ąćęłńóśźż]|\b(dzień dobry|proszę|czy)\b/i;

const lines = (text: string) =>
  text
    .split(/\r?\n/)
    .map((line) => line.replace(/^\s*(?:[-*•]|\d+[.)])\s*/, '').trim())
    .filter(Boolean);

function factsFrom(text: string, website: { title?: string } | null): PlainFacts {
  return {
    offer: website?.title ?? null,
    prices: [...new Set((text.match(PRICE) ?? []).map((price) => price.replace(/\s+/g, ' ').trim()))],
    hours: HOURS.exec(text)?.[0]?.trim() ?? null,
    address: ADDRESS.exec(text)?.[0]?.trim() ?? null,
    faq: website
      ? lines(text)
          .filter((line) => line.endsWith('?'))
          .slice(0, 20)
      : [],
  };
}

const isQuestion = (line: string) => line.endsWith('?') || /^(ask|zapytaj)/i.test(line);

/**
 * The branches: a line `If "<answer>": <text>` (or `If they say "<answer>": …`) follows the question
 * before it; a question there is the branch's next step, other words its closing. Lines with the
 * same answer after the same question make one branch.
 */
function branchesFrom(all: string[]): ScriptReading['call_flow']['branches'] {
  const branches: ScriptReading['call_flow']['branches'] = [];
  let question: string | null = null;
  for (const line of all.slice(1)) {
    const match = BRANCH.exec(line);
    if (!match) {
      if (isQuestion(line) && !OBJECTION.test(line) && !MANDATORY.test(line)) question = line;
      continue;
    }
    if (!question) continue;
    const [, answer, text] = match as unknown as [string, string, string];
    let branch = branches.find((candidate) => candidate.question === question && candidate.answer === answer);
    if (!branch) branches.push((branch = { question, answer, steps: [], closing: null }));
    if (isQuestion(text.trim())) branch.steps.push(text.trim());
    else branch.closing = [branch.closing, text.trim()].filter(Boolean).join(' ');
  }
  return branches;
}

function callFlowFrom(script: string): ScriptReading['call_flow'] {
  const all = lines(script);
  const plain = all.filter((line) => !BRANCH.test(line));
  const steps = plain.slice(1).filter((line) => !OBJECTION.test(line) && !MANDATORY.test(line) && isQuestion(line));
  const branches = branchesFrom(all);
  const asked = [...steps, ...branches.flatMap((branch) => branch.steps)];
  return {
    greeting: all[0] ?? null,
    steps,
    objections: plain.flatMap((line) => {
      const match = OBJECTION.exec(line);
      return match ? [{ objection: match[1]!.trim(), answer: match[2]!.trim() }] : [];
    }),
    mandatory_phrases: plain.filter((line) => MANDATORY.test(line)),
    data_to_collect: DATA_WORDS.filter((word) => asked.some((step) => step.toLowerCase().includes(word))),
    branches,
  };
}

/** The fake's answer to the prompt of shared/ai/script-reading.ts (its `=== … ===` sections). */
export function readScriptPrompt(prompt: string): ScriptReading {
  const section = (start: RegExp) => {
    const match = start.exec(prompt);
    if (!match) return null;
    const rest = prompt.slice(match.index + match[0].length);
    return { header: match, text: rest.slice(0, rest.search(/\n=== (?:WEBSITE .*|END) ===/)).trim() };
  };
  const script = section(/=== CALL SCRIPT ===\n/)?.text ?? '';
  const site = section(/=== WEBSITE (\S+)(?: \(title: (.*)\))? ===\n/);
  const title = site?.header[2];
  return {
    company_name: /this is ([A-Z][\w&' -]*?)(?: here)?[.,!]/.exec(script)?.[1]?.trim() ?? null,
    script_language: POLISH.test(script) ? 'pl' : 'en',
    call_flow: callFlowFrom(script),
    script_facts: factsFrom(script, null),
    website_facts: site ? factsFrom(site.text, { ...(title ? { title } : {}) }) : null,
  };
}
