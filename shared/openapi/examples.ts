import type { Route } from '../api/route.ts';
import { API_KEY_HEADER } from '../api/gateway.ts';

/**
 * Request examples of the OpenAPI document: a body for every operation that takes one (checked
 * against the operation's own zod schema by test/unit/openapi-docs.test.ts) and, for every
 * operation, a curl command built from them, shown in its description and as `x-codeSamples`.
 */

/** A value for every path parameter of the route table, and for the required query parameters. */
export const PARAMETER_EXAMPLES: Record<string, string | number> = {
  agent_id: 'agent_Q8xT2mV7pL4nR9sK3wZ1',
  workflow_id: 42,
  conversation_id: 1001,
  campaign_id: 7,
  trigger_id: 'trg_Hx4kP9sT2vW7yZ1b',
  connection_id: 'conn_Lm3nQ8rT5vX2zA7c',
  webhook_id: 'wh_Ab3dE6gH9jK2mN5p',
  delivery_id: 'msg_1-1001_wh_Ab3dE6gH9jK2mN5p',
  phone_number: '+48601234567',
  phone_number_id: 12,
  memory_id: 'mem_Tq7wE2rY5uI8oP1a',
  test_id: 'test_Hq3mT8vW1xZ5bN7c',
  test_run_id: 31,
  document_id: 'doc_Zx9cV4bN7mK2jH5g',
  number_document_id: 5,
  tool_id: 'tool_Fg6hJ1kL4zX8cV3b',
  asset: 'swagger-ui.css',
  token: 'eyJrIjoicnVucy9vcmctMS9hZ2VudC00Mi9ydW4tMTAwMS9yZWNvcmRpbmcud2F2In0.c2lnbmF0dXJl',
  country_code: 'PL',
  q: 'opening hours',
  provider: 'deepgram',
  key_id: 'key_Q2x8T1mZ0aB4cD6e',
  definition_id: 118,
};

const WORKFLOW_DEFINITION = {
  greeting: 'Hi {{initial_context.name}}, this is North Clinic.',
  steps: ['Can you come to your appointment tomorrow at 10:00?'],
  closing: 'Thank you, goodbye.',
};
const CALL = {
  phone_number: '+48601234561',
  initial_context: { name: 'Anna', appointment: '2026-11-24T10:00:00+01:00' },
};
const sourced = (value: string) => ({ value, source: 'script' as const });

/** A request body per operationId (JSON bodies only). */
export const REQUEST_EXAMPLES: Record<string, unknown> = {
  createAgent: {
    name: 'Appointment reminders',
    workflow_definition: WORKFLOW_DEFINITION,
    template_context_variables: { clinic: 'North' },
    call_disposition_codes: { confirmed: 'Visit confirmed', reschedule: 'Wants another date' },
    voicemail_message:
      'Hello, this is North Clinic about your visit tomorrow at 10. Please call us back on 22 123 45 67.',
  },
  updateAgent: {
    name: 'Appointment reminders (North)',
    call_disposition_codes: { confirmed: 'Visit confirmed', cancelled: 'Visit cancelled' },
  },
  placeCall: CALL,
  placeCallLegacy: CALL,
  placeTriggerCall: CALL,
  createConversation: { mode: 'chat', name: 'Website chat', initial_context: { name: 'Anna' } },
  saveDefinitionDraft: {
    workflow_definition: { ...WORKFLOW_DEFINITION, closing: 'Thank you, see you tomorrow.' },
    note: 'A warmer closing',
  },
  controlConversation: { type: 'say', text: 'A colleague will call you back today.', end_call: false },
  createCampaign: {
    name: 'November reminders',
    goal: 'Confirm appointments',
    workflow_id: 42,
    source_type: 'manual',
    manual_contacts: [
      { phone_number: '+48601234561', first_name: 'Anna', last_name: 'Nowak' },
      { phone_number: '+48601234562', first_name: 'Jan', last_name: 'Kowalski' },
    ],
    retry_config: { max_retries: 2, retry_delay_seconds: 3600 },
    calling_window: { timezone: 'Europe/Warsaw', days: [1, 2, 3, 4, 5], start: '09:00', end: '17:00' },
  },
  startConsent: {
    provider: 'google-sheets',
    redirect_uri: 'https://console.example.com/console/',
    code_challenge: 'ngF5GsXcbwljx6u133FFr3Xht9xooA_DuaX_3QwODtc',
    code_challenge_method: 'S256',
  },
  createConnection: {
    provider: 'google-sheets',
    authorization_code: '4/0AeanS0b-example',
    redirect_uri: 'https://console.example.com/console/',
    state: 'q4N1x0bY7cL2mT9vR5sK8wJ3hF6gD1aZ0eU4iO7pQ2w',
    code_verifier: 'dBjftJeZ4CVP-mJ92K27uhbUJU1p1r_wW1gFWFOEjXk',
  },
  createTrigger: { workflow_id: 42, name: 'CRM new lead' },
  createWebhook: {
    url: 'https://example.com/hooks/voice',
    events: ['call.completed', 'call.failed', 'campaign.completed'],
  },
  updateWebhook: { events: ['call.completed', 'campaign.completed'] },
  testWebhook: { event_type: 'call.completed' },
  rotateWebhookSecret: { overlap_seconds: 3600 },
  addDoNotCallNumber: { phone_number: '+48601234567' },
  createApiKey: { name: 'CRM integration' },
  purchaseNumber: {
    phone_number: '+48601234567',
    country_code: 'PL',
    number_type: 'mobile',
    end_user_id: 1042,
    consent: true,
    end_user: {
      name: 'North Clinic sp. z o.o.',
      address: 'ul. Polna 1, 00-001 Warszawa',
      document_type: 'company_registration',
      document_number: '0000123456',
      document_id: 5,
    },
  },
  assignPhoneNumber: { phone_number_id: 12, workflow_id: 42 },
  setAgentOutboundNumber: { phone_number_id: 12 },
  createAgentFromTemplate: {
    template_id: 'dental-reminders',
    variables: { clinic_name: 'North Clinic' },
    language: 'en',
    agent_name: 'Dental reminders',
    generate_with_ai: false,
  },
  translatePrompt: {
    text: 'Can you come tomorrow at 10:00?',
    target_language: 'pl',
    context: 'A dental clinic reminding a patient of a visit',
  },
  setModelKey: { api_key: 'sk-example-0123456789', api_url: 'https://api.openai.com/v1', model: 'gpt-4o-mini' },
  setSpeechKey: { api_key: 'dg-example-0123456789abcdef' },
  putTelephonyConfig: {
    credentials: {
      provider: 'twilio',
      account_sid: 'AC0123456789abcdef0123456789abcdef',
      auth_token: 'example-auth-token-0123456789',
    },
    caller_id: '+14155550123',
    calls_per_second: 1,
  },
  analyzeScript: {
    script_text:
      'Good morning, this is North Clinic.\nCan I have your name?\nIf they say it is too expensive: we offer instalments.',
    url: 'https://example.com',
    company_name: 'North Clinic',
    language: 'en',
  },
  createAgentFromScript: {
    agent_name: 'North Clinic intake',
    analysis: {
      company_name: 'North Clinic',
      language: 'en',
      call_flow: {
        greeting: sourced('Good morning, this is North Clinic.'),
        steps: [sourced('Can I have your name?')],
        objections: [{ objection: 'it is too expensive', answer: 'we offer instalments', source: 'script' }],
        mandatory_phrases: [],
        data_to_collect: [sourced('name')],
      },
      facts: { offer: null, prices: [], hours: null, address: null, faq: [] },
      conflicts: [],
    },
  },
  createMemory: { content: 'Call back about the new date', topic: 'follow-up', due_at: '2026-12-01T09:00:00+01:00' },
  updateMemory: { done: true },
  createTestCase: {
    name: 'Reschedules to Friday',
    caller: {
      persona: 'Anna Kowalska, 67, a patient of North Clinic, polite but a little hard of hearing',
      goal: "Move tomorrow's 10:00 appointment to Friday afternoon",
      language: 'en',
      behaviour: ['hesitant'],
    },
    initial_context: { name: 'Anna', appointment: '2026-11-24T10:00:00+01:00' },
    tool_mocks: [{ tool: 'find_slots', status: 200, body: { slots: ['Friday 14:00', 'Friday 15:30'] } }],
    max_turns: 8,
    tags: ['smoke', 'rescheduling'],
    expectations: [
      { type: 'tool_called', tool: 'find_slots' },
      { type: 'disposition', code: 'reschedule' },
      { type: 'phrase_said', phrase: 'this call is recorded' },
      { type: 'max_turns', turns: 6 },
      { type: 'judged', criteria: 'The agent confirms the new date and time before ending the call' },
    ],
  },
  updateTestCase: { tags: ['smoke'], max_turns: 10 },
  createTestRun: { tag: 'smoke', definition_id: 118, repeat: 2, parallelism: 4 },
  addKnowledgeDocument: {
    title: 'Opening hours',
    content: 'We are open Monday to Friday, 8:00-18:00, and on Saturdays 9:00-13:00.',
  },
  createTool: {
    name: 'check_availability',
    description: 'Free appointment slots on a given day',
    method: 'GET',
    url: 'https://api.example.com/slots',
    headers: { Authorization: 'Bearer example-token' },
    parameters: {
      type: 'object',
      properties: { date: { type: 'string', description: 'YYYY-MM-DD' } },
      required: ['date'],
    },
  },
};

/** The request as a portable curl command (POSIX shell; `$BASE` and `$KEY` as in the README). */
export function curlExample(route: Route): string {
  const path = route.path.replace(/\{([^}]+)\}/g, (_match, name: string) =>
    encodeURIComponent(String(PARAMETER_EXAMPLES[name] ?? name)),
  );
  const required = Object.entries(route.request.query?.shape ?? {}).filter(
    ([, schema]) => !(schema as { safeParse: (v: unknown) => { success: boolean } }).safeParse(undefined).success,
  );
  const query = required.map(([name]) => `${name}=${encodeURIComponent(String(PARAMETER_EXAMPLES[name]))}`).join('&');
  const lines = [`curl -s -X ${route.method} "$BASE${path}${query ? `?${query}` : ''}"`];
  if (!route.public) lines.push(`-H "${API_KEY_HEADER}: $KEY"`);
  const body = REQUEST_EXAMPLES[route.operationId];
  if (body !== undefined)
    lines.push("-H 'Content-Type: application/json'", `-d '${JSON.stringify(body).replace(/'/g, "'\\''")}'`);
  if (route.request.multipart) lines.push('-F file=@script.pdf');
  return lines.join(' \\\n     ');
}
