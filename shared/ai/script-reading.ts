/**
 * What the language model reads from a call script and a company website for
 * `POST /agent-templates/analyze-script`: a structured answer (`response_format` JSON schema,
 * validated with zod). The model keeps the two sources apart; which value came from where, and
 * that the script wins, are the domain's rules (shared/domain/script-analysis.ts), not the model's.
 */
import * as z from 'zod';
import type { LanguageModel } from './language-model.ts';

/** The name of the schema sent to the provider (the local fake answers it, local/fakes/script-reader.ts). */
export const SCRIPT_READING = 'script_analysis';

/** Website text given to the model at most (characters): the page's facts are near its top. */
export const MAX_WEBSITE_TEXT_CHARS = 20_000;

const PlainFacts = z.object({
  offer: z.string().nullable().describe('What the company offers, in a few words; null when not said'),
  prices: z.array(z.string()).describe('Each price as written, with its currency ("200 PLN")'),
  hours: z.string().nullable().describe('Opening hours as written; null when not said'),
  address: z.string().nullable().describe('Postal address as written; null when not said'),
  faq: z
    .array(z.string())
    .describe(
      'Questions the text answers for customers, each as the question followed by the answer the text gives ("Do you treat children? Yes, from age 3.")',
    ),
});

export const ScriptReading = z.object({
  company_name: z.string().nullable().describe('The company as the texts name it; null when they do not'),
  script_language: z.string().nullable().describe('BCP 47 code of the language the script is written in'),
  call_flow: z.object({
    greeting: z.string().nullable().describe("The agent's opening line, verbatim"),
    steps: z.array(z.string()).describe('The questions and steps of the call, in order, verbatim'),
    objections: z
      .array(z.object({ objection: z.string(), answer: z.string() }))
      .describe('What the callee may object and what the script answers'),
    mandatory_phrases: z
      .array(z.string())
      .describe('Sentences that must be said verbatim: recording notice, data-protection notice and the like'),
    data_to_collect: z
      .array(z.string())
      .describe('What the call gathers from the callee, one short noun each ("name")'),
    branches: z
      .array(
        z.object({
          question: z.string().describe('The question of `steps` (verbatim) whose answer chooses this branch'),
          answer: z.string().describe('The answer that takes this branch, in a word or a few ("yes", "a loan")'),
          steps: z.array(z.string()).describe('What the script asks next on this branch, in order, verbatim'),
          closing: z
            .string()
            .nullable()
            .describe('The words this branch ends the call with, verbatim; null when it goes on with the steps'),
        }),
      )
      .describe('Where the script goes one way or another on an answer; empty when it does not branch'),
  }),
  script_facts: PlainFacts.describe('Facts stated in the call script'),
  website_facts: PlainFacts.nullable().describe('Facts stated on the website; null when no website is given'),
});
export type ScriptReading = z.output<typeof ScriptReading>;

const SYSTEM = [
  'You read a company call script, and optionally its website, for a phone agent that will follow the script.',
  'Fill the JSON schema. Take the call flow from the script only; take facts from each text separately:',
  'script_facts only from the script, website_facts only from the website (null when there is none).',
  'Copy values as written in the texts (same language, no translation, no invention); leave out what the texts do not say.',
].join('\n');

export interface ScriptSources {
  script: string;
  website: { url: string; title?: string; text: string } | null;
  companyName: string;
  language: string;
}

/** The prompt: the two texts, marked, so the model (and the local fake) can tell them apart. */
export function scriptReadingPrompt(sources: ScriptSources): string {
  const parts = [
    `Company name given by the user: ${sources.companyName || '(none)'}`,
    `Language of the agent: ${sources.language}`,
    '',
    '=== CALL SCRIPT ===',
    sources.script,
  ];
  if (sources.website) {
    parts.push(
      '',
      `=== WEBSITE ${sources.website.url}${sources.website.title ? ` (title: ${sources.website.title})` : ''} ===`,
      sources.website.text.slice(0, MAX_WEBSITE_TEXT_CHARS),
    );
  }
  parts.push('=== END ===');
  return parts.join('\n');
}

/** The model's reading of the script and the website (a LanguageModelError when it fails or answers nonsense). */
export function readScript(model: LanguageModel, sources: ScriptSources): Promise<ScriptReading> {
  return model.extract({
    name: SCRIPT_READING,
    schema: ScriptReading,
    system: SYSTEM,
    prompt: scriptReadingPrompt(sources),
  });
}
