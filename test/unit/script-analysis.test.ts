import { describe, expect, it } from 'vitest';
import { callFlowFrom, factsFrom, mergeFacts, pageText } from '../../shared/domain/script-analysis.ts';
import { fillTemplate } from '../../shared/templates/catalogue.ts';

const SCRIPT = `Good morning, this is Smile Clinic.
This call is recorded for quality purposes.
1. May I have your name?
2. What phone number should we use?
If they say it's too expensive: Mention the 10% first-visit discount.
Our check-up costs 200 PLN.
We are open Mon-Fri 9-17.`;

describe('callFlowFrom', () => {
  it('reads greeting, steps in order, objections, mandatory phrases and data to collect', () => {
    const flow = callFlowFrom(SCRIPT);
    expect(flow.greeting).toEqual({ value: 'Good morning, this is Smile Clinic.', source: 'script' });
    expect(flow.steps.map((step) => step.value)).toEqual(['May I have your name?', 'What phone number should we use?']);
    expect(flow.objections).toEqual([
      { objection: "they say it's too expensive", answer: 'Mention the 10% first-visit discount.', source: 'script' },
    ]);
    expect(flow.mandatory_phrases.map((phrase) => phrase.value)).toEqual([
      'This call is recorded for quality purposes.',
    ]);
    expect(flow.data_to_collect.map((item) => item.value)).toEqual(['name', 'phone']);
  });
});

describe('mergeFacts', () => {
  it('prefers the script and lists where the website differs', () => {
    const site = pageText(
      '<html><title>Smile Clinic - dentist</title><p>Check-up 250 PLN</p><p>Open Mon-Fri 8-16</p><p>ul. Marszałkowska 1, Warszawa</p><p>Do you accept cards?</p></html>',
    );
    const merged = mergeFacts(factsFrom(SCRIPT, 'script'), factsFrom(site.text, 'website', site.title));
    expect(merged.facts.hours).toEqual({ value: 'Mon-Fri 9-17', source: 'script' });
    expect(merged.facts.prices).toEqual([{ value: '200 PLN', source: 'script' }]);
    expect(merged.facts.address).toEqual({ value: 'ul. Marszałkowska 1, Warszawa', source: 'website' });
    expect(merged.facts.offer).toEqual({ value: 'Smile Clinic - dentist', source: 'website' });
    expect(merged.facts.faq).toEqual([{ value: 'Do you accept cards?', source: 'website' }]);
    expect(merged.conflicts).toEqual([
      { field: 'prices', script_value: '200 PLN', website_value: '250 PLN' },
      { field: 'hours', script_value: 'Mon-Fri 9-17', website_value: 'Mon-Fri 8-16' },
    ]);
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
