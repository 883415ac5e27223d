import { Agent } from '../../schemas/agents.ts';
import {
  AnalyzeScriptRequest,
  ExtractedText,
  ExtractTextQuery,
  ExtractTextUpload,
  FromScriptRequest,
  FromTemplateRequest,
  ModelKeyRequest,
  ModelKeyStatus,
  ScriptAnalysis,
  TemplateList,
  TranslatePromptRequest,
  TranslatePromptResponse,
} from '../../schemas/agent-authoring.ts';
import { ErrorResponse } from '../../schemas/common.ts';
import { SpeechKeyList, SpeechKeyRequest, SpeechKeyStatus, SpeechProviderParam } from '../../schemas/speech-keys.ts';
import { BAD_REQUEST, LANGUAGE_MODEL, NOT_FOUND, UNAUTHORIZED, VALIDATION } from '../common-responses.ts';
import { defineRoute } from '../route.ts';
import { PaginationQuery } from '../../schemas/pagination.ts';

export const agentTemplateRoutes = {
  listTemplates: defineRoute({
    operationId: 'listAgentTemplates',
    method: 'GET',
    path: '/agent-templates',
    group: 'agentAuthoring',
    summary: 'The catalogue of industry agent templates',
    description:
      'The shipped industry templates (dental reminders, real-estate leads, restaurant reservations, payment reminder, satisfaction survey, and account service with an identity check, a conversation flow: `flow: true`), with their variables and languages, paginated. Use one with `POST /agents/from-template`.',
    tags: ['Agent templates'],
    request: { query: PaginationQuery },
    responses: { 200: { description: 'One page of templates', schema: TemplateList }, ...UNAUTHORIZED, ...VALIDATION },
  }),
  fromTemplate: defineRoute({
    operationId: 'createAgentFromTemplate',
    method: 'POST',
    path: '/agents/from-template',
    group: 'agentAuthoring',
    summary: 'Create an agent from a template',
    description:
      'Fills the template\'s `{{variables}}`; missing required variables are 422 on `["body","variables","<name>"]`; with `generate_with_ai` the language model writes the questions. ' +
      'A template that is a conversation flow (`flow: true` in the catalogue, e.g. `account-service`: the identity check, then the account or the end) gives the agent its graph of steps with the variables filled in; `generate_with_ai` is a 422 on `["body","generate_with_ai"]` there.',
    tags: ['Agent templates'],
    request: { body: FromTemplateRequest },
    responses: {
      200: {
        description: 'The agent created (200, as the earlier service answered; the spec gives no status)',
        schema: Agent,
      },
      ...UNAUTHORIZED,
      ...NOT_FOUND,
      ...VALIDATION,
      ...LANGUAGE_MODEL,
    },
  }),
  translatePrompt: defineRoute({
    operationId: 'translatePrompt',
    method: 'POST',
    path: '/agents/translate-prompt',
    group: 'agentAuthoring',
    summary: 'Translate a prompt or message',
    description: "Uses the organization's own model key when set (`PUT /model-key`), otherwise the platform model.",
    tags: ['Agent templates'],
    request: { body: TranslatePromptRequest },
    responses: {
      200: { description: 'Translation', schema: TranslatePromptResponse },
      ...UNAUTHORIZED,
      ...VALIDATION,
      ...LANGUAGE_MODEL,
    },
  }),
  getModelKey: defineRoute({
    operationId: 'getModelKey',
    method: 'GET',
    path: '/model-key',
    group: 'agentAuthoring',
    summary: "Whether the organization's own language-model key is set",
    description: '`configured` and the last four characters of the key; the key itself is never returned.',
    tags: ['Agent templates'],
    request: {},
    responses: { 200: { description: 'Status', schema: ModelKeyStatus }, ...UNAUTHORIZED },
  }),
  setModelKey: defineRoute({
    operationId: 'setModelKey',
    method: 'PUT',
    path: '/model-key',
    group: 'agentAuthoring',
    summary: "Set the organization's own language-model key (stored encrypted, never returned)",
    description:
      "An OpenAI-compatible key (`api_key`, optional `api_url` and `model`) used for this organization's AI features instead of the platform model; stored encrypted.",
    tags: ['Agent templates'],
    request: { body: ModelKeyRequest },
    responses: { 200: { description: 'Status', schema: ModelKeyStatus }, ...UNAUTHORIZED, ...VALIDATION },
  }),
  clearModelKey: defineRoute({
    operationId: 'clearModelKey',
    method: 'DELETE',
    path: '/model-key',
    group: 'agentAuthoring',
    summary: "Remove the organization's model key (the platform model is used again)",
    description: 'Deletes the stored key; AI features use the platform model again.',
    tags: ['Agent templates'],
    request: {},
    responses: { 204: { description: 'Removed' }, ...UNAUTHORIZED, ...NOT_FOUND },
  }),
  listSpeechKeys: defineRoute({
    operationId: 'listSpeechKeys',
    method: 'GET',
    path: '/speech-keys',
    group: 'agentAuthoring',
    summary: "The organization's own speech provider keys (never the keys themselves)",
    description:
      'Which speech providers (Deepgram, ElevenLabs, OpenAI speech) the organization brought its own key for; the keys are never returned.',
    tags: ['Agent templates'],
    request: { query: PaginationQuery },
    responses: { 200: { description: 'Keys', schema: SpeechKeyList }, ...UNAUTHORIZED },
  }),
  setSpeechKey: defineRoute({
    operationId: 'setSpeechKey',
    method: 'PUT',
    path: '/speech-keys/{provider}',
    group: 'agentAuthoring',
    summary:
      "Set the organization's own key at a speech provider (stored encrypted, never returned); calls use it instead of the platform's",
    description:
      "The key is encrypted with the stack's KMS key; the organization's calls use it instead of the platform's from the next call on.",
    tags: ['Agent templates'],
    request: { params: SpeechProviderParam, body: SpeechKeyRequest },
    responses: {
      200: { description: 'Status', schema: SpeechKeyStatus },
      ...BAD_REQUEST,
      ...UNAUTHORIZED,
      ...VALIDATION,
    },
  }),
  clearSpeechKey: defineRoute({
    operationId: 'clearSpeechKey',
    method: 'DELETE',
    path: '/speech-keys/{provider}',
    group: 'agentAuthoring',
    summary: "Remove the organization's key at a speech provider (the platform's is used again)",
    description: 'Deletes the stored key; 404 when none was set.',
    tags: ['Agent templates'],
    request: { params: SpeechProviderParam },
    responses: { 204: { description: 'Removed' }, ...UNAUTHORIZED, ...NOT_FOUND, ...VALIDATION },
  }),
  analyzeScript: defineRoute({
    operationId: 'analyzeScript',
    method: 'POST',
    path: '/agent-templates/analyze-script',
    group: 'agentAuthoring',
    summary: 'Read a call script (and optionally the company website); creates nothing',
    description:
      "The language model (the organization's own key when set, otherwise the platform model) reads the call flow from the script (greeting, " +
      'questions in order, objection answers, mandatory phrases, data to collect, the branches on an answer) and the facts (offer, prices, hours, address, FAQ) from the script ' +
      'and from the website, each apart, as a structured answer (JSON schema) that is validated. The website is fetched through the SSRF guard and ' +
      'its visible text (first 20,000 characters) given to the model; a website that cannot be fetched is a 400. Every value then carries its ' +
      '`source`; where both give a fact and differ, the script wins and `conflicts` lists it. An empty `company_name` is filled from what the model ' +
      'read. A model answer that is not the schema, or a failing provider, is a 502 naming it; no platform model configured, a 503 naming what to ' +
      'configure. Pass the result, edited or not, to `POST /agents/from-script`.',
    tags: ['Agent templates'],
    request: { body: AnalyzeScriptRequest },
    responses: {
      200: { description: 'Analysis', schema: ScriptAnalysis },
      ...BAD_REQUEST,
      ...UNAUTHORIZED,
      ...VALIDATION,
      ...LANGUAGE_MODEL,
    },
  }),
  fromScript: defineRoute({
    operationId: 'createAgentFromScript',
    method: 'POST',
    path: '/agents/from-script',
    group: 'agentAuthoring',
    summary: 'Create an agent from a script analysis',
    description:
      'Turns the result of `POST /agent-templates/analyze-script` (edited or not) into an agent: greeting, steps, objection answers, mandatory phrases ' +
      'and data to collect become its workflow definition, the facts its `template_context_variables`, `language` its language. The model already ' +
      'read the script in analyze-script, so by default this step calls no model and the agent is exactly the analysis the client reviewed; with ' +
      "`generate_with_ai` the model (the organization's own, else the platform's) writes the agent's questions from the script's steps and the data " +
      'to collect (503 when no model is configured, 502 when it fails), as in from-template. ' +
      'The FAQ facts (`facts.faq`) become a document of the new agent\'s knowledge base ("Questions customers ask <company_name>", one passage a question), searched on every caller turn. ' +
      'A script that branches (`call_flow.branches` not empty) becomes a conversation flow instead (docs/flows.md): the greeting and the mandatory phrases in a start step the caller cannot interrupt, ' +
      'a step per question, a transition per answer where the script branches (plus one for any other answer, which goes on with the steps), each branch its own steps and its closing, objections as global instructions, ' +
      'each datum to collect extracted where it is asked. A branch whose `question` is none of the `steps` is a 422 on `["body","analysis","call_flow","branches",<i>,"question"]`; ' +
      "`generate_with_ai` with branches is a 422 (the branches hang on the script's own words).",
    tags: ['Agent templates'],
    request: { body: FromScriptRequest },
    responses: {
      200: {
        description: 'The agent created (200, as the earlier service answered; the spec gives no status)',
        schema: Agent,
      },
      ...UNAUTHORIZED,
      ...VALIDATION,
      ...LANGUAGE_MODEL,
    },
  }),
  extractText: defineRoute({
    operationId: 'extractText',
    method: 'POST',
    path: '/agent-templates/extract-text',
    group: 'agentAuthoring',
    summary: 'Turn an uploaded document into plain text',
    description:
      'Multipart `file`: PDF, DOCX, TXT or MD (else 415). `purpose=knowledge` (default): at most MAX_UPLOAD_BYTES = 1 MiB and 20,000 characters, the text fills ' +
      "the agent's knowledge box (`workflow_definition.knowledge`), inlined into the system prompt of its calls; larger documents belong in the knowledge base. " +
      '`purpose=script`: at most MAX_SCRIPT_UPLOAD_BYTES = 4 MiB and ' +
      'MAX_SCRIPT_TEXT_CHARS = 50,000 characters, distilled by the model. Over a byte cap: 413; over a character cap: 422. A DOCX that unpacks past ' +
      '32 MiB (measured while inflating) or has more than 1,000 entries, a PDF of more than 300 pages or whose streams decode past 64 MiB in all ' +
      '(measured before pdf.js reads it, the inflater stopped at the cap), an encrypted PDF, or a document that takes more than 10 s to read: ' +
      '422 `value_error` on `["body","file"]`. A malformed or ' +
      'truncated multipart body: 422 on `["body"]`. The upload travels base64-encoded in a Lambda event of at most 6 MB, hence the 4 MiB cap.',
    tags: ['Agent templates'],
    request: { query: ExtractTextQuery, multipart: ExtractTextUpload },
    responses: {
      200: { description: 'Text', schema: ExtractedText },
      ...LANGUAGE_MODEL,
      413: { description: 'File too large', schema: ErrorResponse },
      415: { description: 'Unsupported file type', schema: ErrorResponse },
      ...UNAUTHORIZED,
      ...VALIDATION,
    },
  }),
};
