/** The shipped catalogue of industry agent templates. `{{name}}` placeholders are filled from `variables`. */
import type { FlowDefinition } from '../domain/flows.ts';

export interface TemplateVariable {
  name: string;
  description: string;
  required: boolean;
}

/** A template's flat definition: its greeting, questions and closing. */
export interface PromptTemplate {
  greeting: string;
  steps: string[];
  closing: string;
}

export interface AgentTemplate {
  id: string;
  name: string;
  industry: string;
  description: string;
  languages: string[];
  variables: TemplateVariable[];
  /** The brief the language model expands when `generate_with_ai` is set: one topic per line. */
  brief: string;
  /** A flat prompt, or a conversation flow (docs/flows.md) whose texts have the placeholders. */
  workflow_definition: PromptTemplate | FlowDefinition;
  call_disposition_codes: Record<string, string>;
}

const variable = (name: string, description: string, required = true): TemplateVariable => ({
  name,
  description,
  required,
});

export const AGENT_TEMPLATES: AgentTemplate[] = [
  {
    id: 'dental-reminders',
    name: 'Dental visit reminders',
    industry: 'healthcare',
    description: "Reminds patients of tomorrow's visit and confirms or reschedules it.",
    languages: ['en', 'pl'],
    variables: [
      variable('clinic_name', 'Name of the clinic'),
      variable('clinic_phone', 'Number patients can call back', false),
    ],
    brief: 'Confirm the visit time\nAsk whether the patient needs to reschedule',
    workflow_definition: {
      greeting: 'Hello, this is {{clinic_name}} calling about your visit tomorrow.',
      steps: ['Can you confirm you will come at the booked time?', 'Would you like to reschedule instead?'],
      closing: 'Thank you. If anything changes, call us at {{clinic_phone}}. Goodbye.',
    },
    call_disposition_codes: {
      confirmed: 'Visit confirmed',
      rescheduled: 'Asked to reschedule',
      cancelled: 'Visit cancelled',
    },
  },
  {
    id: 'real-estate-leads',
    name: 'Real-estate lead qualification',
    industry: 'real_estate',
    description: 'Qualifies buyers who left their number on a listing.',
    languages: ['en', 'pl', 'de'],
    variables: [variable('agency_name', 'Name of the agency'), variable('listing', 'The listing the lead asked about')],
    brief: 'Budget\nPreferred district\nTimeline to buy',
    workflow_definition: {
      greeting: 'Hello, this is {{agency_name}}. You asked about {{listing}}.',
      steps: ['What budget do you have in mind?', 'Which district do you prefer?', 'When would you like to buy?'],
      closing: 'Thank you, an agent will call you back. Goodbye.',
    },
    call_disposition_codes: {
      qualified: 'Qualified lead',
      not_interested: 'Not interested',
      callback: 'Call back later',
    },
  },
  {
    id: 'restaurant-reservations',
    name: 'Restaurant reservations',
    industry: 'hospitality',
    description: 'Confirms table reservations and collects special requests.',
    languages: ['en', 'pl', 'it'],
    variables: [variable('restaurant_name', 'Name of the restaurant')],
    brief: 'Number of guests\nSpecial requests or allergies',
    workflow_definition: {
      greeting: 'Good day, this is {{restaurant_name}} about your reservation.',
      steps: ['For how many guests is the table?', 'Any special requests or allergies we should know about?'],
      closing: 'We look forward to seeing you. Goodbye.',
    },
    call_disposition_codes: { confirmed: 'Reservation confirmed', cancelled: 'Reservation cancelled' },
  },
  {
    id: 'payment-reminder',
    name: 'Payment reminder',
    industry: 'finance',
    description: 'Reminds a customer politely of an overdue invoice.',
    languages: ['en', 'pl'],
    variables: [
      variable('company_name', 'Name of the company'),
      variable('invoice_number', 'The overdue invoice'),
      variable('amount', 'Amount due'),
    ],
    brief: 'When the customer can pay\nWhether they need a payment plan',
    workflow_definition: {
      greeting: 'Hello, this is {{company_name}} about invoice {{invoice_number}} of {{amount}}.',
      steps: ['When will you be able to pay?', 'Would a payment plan help?'],
      closing: 'Thank you for your time. Goodbye.',
    },
    call_disposition_codes: {
      promise_to_pay: 'Promised to pay',
      payment_plan: 'Asked for a payment plan',
      dispute: 'Disputes the invoice',
    },
  },
  {
    id: 'satisfaction-survey',
    name: 'Customer satisfaction survey',
    industry: 'retail',
    description: 'A three-question survey after a purchase.',
    languages: ['en', 'pl', 'de', 'fr'],
    variables: [variable('brand', 'Brand name'), variable('product', 'What the customer bought', false)],
    brief: 'Overall satisfaction\nWhat could be better\nWould they recommend us',
    workflow_definition: {
      greeting: 'Hello, this is {{brand}}. Do you have a minute for a short survey about {{product}}?',
      steps: ['How satisfied are you, from 1 to 5?', 'What could we do better?', 'Would you recommend us to a friend?'],
      closing: 'Thank you for your answers. Goodbye.',
    },
    call_disposition_codes: { completed: 'Survey completed', declined: 'Declined the survey' },
  },
  {
    id: 'account-service',
    name: 'Account service with identity check',
    industry: 'finance',
    description:
      "A conversation flow: the caller's identity is checked (their date of birth against the call's `initial_context.date_of_birth`) before the account is discussed; a caller who cannot be verified is told so and the call ends.",
    languages: ['en'],
    variables: [variable('company_name', 'Name of the bank or company')],
    brief: 'Date of birth, to verify the caller\nWhat the caller needs with their account',
    workflow_definition: {
      nodes: [
        {
          id: 'start',
          type: 'startCall',
          name: 'Identity check',
          greeting: 'Hello, this is {{company_name}}. Before we talk about your account, I need to check who you are.',
          prompt:
            'The date of birth on file is {{initial_context.date_of_birth}}. identity_confirmed is true only when the caller confirms or gives that date, false when they give another or refuse. Say "Can you confirm your date of birth, please?"',
          extract: [
            {
              name: 'identity_confirmed',
              type: 'boolean',
              hint: 'Whether the caller confirmed the date of birth on file',
            },
          ],
        },
        {
          id: 'account',
          type: 'agentNode',
          name: 'Account',
          prompt:
            'The caller is verified. Help them with their account: balance, payments, cards. Say "Thank you, you are verified. How can I help with your account?"',
        },
        {
          id: 'not_verified',
          type: 'endCall',
          name: 'Not verified',
          closing:
            "I'm sorry, I could not verify your identity, so I cannot discuss the account. Please call us from the number on your card. Goodbye.",
          disposition: 'not_verified',
        },
        {
          id: 'done',
          type: 'endCall',
          name: 'Goodbye',
          closing: 'Thank you for calling {{company_name}}. Goodbye.',
          disposition: 'resolved',
        },
        {
          id: 'global',
          type: 'globalNode',
          name: 'Everywhere',
          prompt: "Never discuss the account before the caller's identity is confirmed. Be brief and polite.",
        },
      ],
      edges: [
        { source: 'start', target: 'account', expression: 'identity_confirmed == true', label: 'Verified' },
        { source: 'start', target: 'not_verified', expression: 'identity_confirmed == false', label: 'Not verified' },
        { source: 'account', target: 'done', condition: 'The caller has no more questions, or says "goodbye"' },
      ],
      // Said when the caller ends the call in a step that is not an end (before the identity is checked).
      closing: 'Thank you for calling {{company_name}}. Goodbye.',
    },
    call_disposition_codes: { resolved: 'Account question handled', not_verified: 'Identity not verified' },
  },
];

/** Fills `{{name}}` placeholders in every text of a value (a flow's nodes and edges). */
export function fillTemplateDeep<T>(value: T, variables: Record<string, string>): T {
  if (typeof value === 'string') return fillTemplate(value, variables) as T;
  if (Array.isArray(value)) return value.map((item) => fillTemplateDeep(item, variables)) as T;
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, fillTemplateDeep(item, variables)]),
    ) as T;
  return value;
}

/** Fills `{{name}}` placeholders; names without a value become empty (optional variables). */
export const fillTemplate = (text: string, variables: Record<string, string>): string =>
  text
    .replace(
      /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g,
      (_match, name: string) => (Object.hasOwn(variables, name) ? variables[name] : '') ?? '',
    )
    .replace(/\s+([.,!?])/g, '$1')
    .replace(/\s{2,}/g, ' ')
    .trim();
