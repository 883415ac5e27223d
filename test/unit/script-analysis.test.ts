import { describe, expect, it } from 'vitest';
import { ScriptReading, scriptReadingPrompt } from '../../shared/ai/script-reading.ts';
import {
  factsWithSource,
  faqDocument,
  mergeFacts,
  pageText,
  sourced,
  sourcedAll,
} from '../../shared/domain/script-analysis.ts';
import { fillTemplate } from '../../shared/templates/catalogue.ts';
import { readScriptPrompt } from '../../local/fakes/script-reader.ts';

const SCRIPT = `Good morning, this is Smile Clinic.
This call is recorded for quality purposes.
1. May I have your name?
2. What phone number should we use?
If they say it's too expensive: Mention the 10% first-visit discount.
Our check-up costs 200 PLN.
We are open Mon-Fri 9-17.`;

const noFacts = { offer: null, prices: [], hours: null, address: null, faq: [] };

describe('sourced values', () => {
  it.each([
    ['  Hello ', 'script', { value: 'Hello', source: 'script' }],
    ['', 'script', null],
    ['   ', 'website', null],
    [null, 'website', null],
  ] as const)('%j from the %s', (value, source, expected) => {
    expect(sourced(value, source)).toEqual(expected);
  });

  it('drops blank values and repeated prices', () => {
    expect(sourcedAll(['a', ' ', 'b '], 'script')).toEqual([
      { value: 'a', source: 'script' },
      { value: 'b', source: 'script' },
    ]);
    expect(factsWithSource({ ...noFacts, prices: ['200 PLN', ' 200 PLN', ''] }, 'website').prices).toEqual([
      { value: '200 PLN', source: 'website' },
    ]);
  });
});

describe('mergeFacts', () => {
  it.each([
    [
      'the script wins and the differences are listed',
      { ...noFacts, prices: ['200 PLN'], hours: 'Mon-Fri 9-17' },
      {
        offer: 'Smile Clinic - dentist',
        prices: ['250 PLN'],
        hours: 'Mon-Fri 8-16',
        address: 'ul. Marszałkowska 1, Warszawa',
        faq: ['Do you accept cards?'],
      },
      {
        offer: { value: 'Smile Clinic - dentist', source: 'website' },
        prices: [{ value: '200 PLN', source: 'script' }],
        hours: { value: 'Mon-Fri 9-17', source: 'script' },
        address: { value: 'ul. Marszałkowska 1, Warszawa', source: 'website' },
        faq: [{ value: 'Do you accept cards?', source: 'website' }],
      },
      [
        { field: 'prices', script_value: '200 PLN', website_value: '250 PLN' },
        { field: 'hours', script_value: 'Mon-Fri 9-17', website_value: 'Mon-Fri 8-16' },
      ],
    ],
    [
      'the same value in another case is no conflict',
      { ...noFacts, address: 'UL. PROSTA 5' },
      { ...noFacts, address: 'ul. Prosta 5' },
      { ...noFacts, address: { value: 'UL. PROSTA 5', source: 'script' } },
      [],
    ],
    [
      'prices the script also gives are no conflict',
      { ...noFacts, prices: ['200 PLN', '300 PLN'] },
      { ...noFacts, prices: ['300 PLN'] },
      {
        ...noFacts,
        prices: [
          { value: '200 PLN', source: 'script' },
          { value: '300 PLN', source: 'script' },
        ],
      },
      [],
    ],
    [
      'without a website, the script alone',
      { ...noFacts, hours: 'Mon 9-12' },
      null,
      { ...noFacts, hours: { value: 'Mon 9-12', source: 'script' } },
      [],
    ],
  ])('%s', (_case, script, website, facts, conflicts) => {
    expect(mergeFacts(factsWithSource(script, 'script'), website ? factsWithSource(website, 'website') : null)).toEqual(
      { facts, conflicts },
    );
  });
});

describe('faqDocument', () => {
  const web = (value: string) => ({ value, source: 'website' as const });
  it.each([
    ['no FAQ: no document', [], null],
    [
      'one paragraph a question, repeats and blanks dropped',
      [web('Do you treat children? Yes, from age 3.'), web('  '), web('Can I park?'), web('Can I park?')],
      { title: 'Questions customers ask Smile', content: 'Do you treat children? Yes, from age 3.\n\nCan I park?' },
    ],
  ])('%s', (_name, faq, expected) => {
    expect(faqDocument('Smile', faq)).toEqual(expected);
  });
});

describe('pageText', () => {
  it('keeps the visible text and the title', () => {
    expect(
      pageText('<html><title>Smile</title><script>x()</script><p>Check-up 250&nbsp;PLN</p><p>A &amp; B</p></html>'),
    ).toEqual({ title: 'Smile', text: 'Smile Check-up 250 PLN\nA & B' });
  });
});

describe('the local fake model reading a script (deterministic rules)', () => {
  it('answers the prompt of the script reading with a valid structured answer', () => {
    const reading = readScriptPrompt(
      scriptReadingPrompt({
        script: SCRIPT,
        website: {
          url: 'https://smile.example/',
          title: 'Smile Clinic - dentist',
          text: 'Check-up 250 PLN\nOpen Mon-Fri 8-16\nul. Marszałkowska 1, Warszawa\nDo you accept cards?',
        },
        companyName: '',
        language: 'en',
      }),
    );
    expect(ScriptReading.parse(reading)).toEqual(reading);
    expect(reading).toEqual({
      company_name: 'Smile Clinic',
      script_language: 'en',
      call_flow: {
        greeting: 'Good morning, this is Smile Clinic.',
        steps: ['May I have your name?', 'What phone number should we use?'],
        objections: [{ objection: "they say it's too expensive", answer: 'Mention the 10% first-visit discount.' }],
        mandatory_phrases: ['This call is recorded for quality purposes.'],
        data_to_collect: ['name', 'phone'],
        branches: [],
      },
      script_facts: { offer: null, prices: ['200 PLN'], hours: 'Mon-Fri 9-17', address: null, faq: [] },
      website_facts: {
        offer: 'Smile Clinic - dentist',
        prices: ['250 PLN'],
        hours: 'Mon-Fri 8-16',
        address: 'ul. Marszałkowska 1, Warszawa',
        faq: ['Do you accept cards?'],
      },
    });
  });

  it('reads no website when none is given', () => {
    const reading = readScriptPrompt(
      scriptReadingPrompt({ script: 'Dzień dobry, tu Klinika.', website: null, companyName: 'K', language: 'pl' }),
    );
    expect(reading).toMatchObject({ script_language: 'pl', website_facts: null });
  });
});

describe('fillTemplate', () => {
  it.each([
    ['Hello, this is {{clinic_name}}.', { clinic_name: 'Smile' }, 'Hello, this is Smile.'],
    ['Call us at {{phone}}.', {}, 'Call us at.'],
    ['{{ a }} and {{b}}', { a: 'x', b: 'y' }, 'x and y'],
  ])('%s', (text, variables, expected) => {
    expect(fillTemplate(text, variables)).toBe(expected);
  });
});
