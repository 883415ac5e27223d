/** The shipped catalogue of industry agent templates. `{{name}}` placeholders are filled from `variables`. */
export interface TemplateVariable {
  name: string;
  description: string;
  required: boolean;
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
  workflow_definition: { greeting: string; steps: string[]; closing: string };
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
];

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
