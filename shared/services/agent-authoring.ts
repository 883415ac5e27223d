import type { z } from 'zod';
import { encryptSecret } from '../crypto/secret-box.ts';
import { readScript, type ScriptReading } from '../ai/script-reading.ts';
import { misplacedBranches, scriptFlow } from '../domain/script-flow.ts';
import { isFlowDefinition } from '../domain/flows.ts';
import { factsWithSource, faqDocument, mergeFacts, pageText, sourced, sourcedAll } from '../domain/script-analysis.ts';
import { BadRequestError, NotFoundError } from '../domain/errors.ts';
import { RequestValidationError, type Loc, type ValidationErrorItem } from '../http/validation-error.ts';
import { FlowDefinition } from '../schemas/flows.ts';
import * as modelKeys from '../repositories/model-keys.ts';
import type { ScriptAnalysis as ScriptAnalysisSchema } from '../schemas/agent-authoring.ts';
import {
  AGENT_TEMPLATES,
  fillTemplate,
  fillTemplateDeep,
  type AgentTemplate,
  type PromptTemplate,
} from '../templates/catalogue.ts';

/** An analysis as clients send it back (any value may come from either source). */
type ScriptAnalysis = z.output<typeof ScriptAnalysisSchema>;
import { createGuardedFetch } from '../net/guarded-fetch.ts';
import { createAgent, setAgentStatus } from './agents.ts';
import { addKnowledgeDocument } from './agent-resources.ts';
import { modelFor, organizationContext as context } from './language-models.ts';
import { assertPublicUrl } from './public-urls.ts';

/** Customer-chosen URLs go through the SSRF guard, each with its time and size caps. */
const websiteFetch = createGuardedFetch({ timeoutMs: 10_000, maxResponseBytes: 2 * 1024 * 1024 });

export function listTemplates() {
  return {
    items: AGENT_TEMPLATES.map(
      ({ brief: _brief, workflow_definition: _definition, call_disposition_codes: _codes, ...template }) => ({
        ...template,
        flow: isFlowDefinition(_definition as unknown as Record<string, unknown>),
      }),
    ),
  };
}

export async function setModelKey(orgId: number, request: { api_key: string; api_url: string; model: string }) {
  await assertPublicUrl(request.api_url, 'Model API');
  await modelKeys.putModelKey(orgId, {
    api_url: request.api_url,
    model: request.model,
    api_key_ciphertext: await encryptSecret(request.api_key, context(orgId)),
    key_last4: request.api_key.slice(-4),
    updated_at: new Date().toISOString(),
  });
  return modelKeyStatus(orgId);
}

export async function modelKeyStatus(orgId: number) {
  const stored = await modelKeys.getModelKey(orgId);
  return stored
    ? {
        configured: true,
        api_url: stored.api_url,
        model: stored.model,
        key_last4: stored.key_last4,
        updated_at: stored.updated_at,
      }
    : { configured: false, api_url: null, model: null, key_last4: null, updated_at: null };
}

export async function clearModelKey(orgId: number): Promise<void> {
  if (!(await modelKeys.deleteModelKey(orgId))) throw new NotFoundError('No model key is set');
}

export async function translatePrompt(
  orgId: number,
  request: { text: string; target_language: string; context: string },
) {
  const { model, owner } = await modelFor(orgId);
  const translated = await model.complete({
    system: `Translate the user's text for a voice agent. Keep {{placeholders}} unchanged. Context: ${request.context}\nTarget language: ${request.target_language}`,
    prompt: request.text,
  });
  return { translated_text: translated, target_language: request.target_language, model: owner };
}

export async function createFromTemplate(
  orgId: number,
  request: {
    template_id: string;
    variables: Record<string, string>;
    language: string;
    agent_name: string;
    generate_with_ai: boolean;
  },
) {
  const template = AGENT_TEMPLATES.find((candidate) => candidate.id === request.template_id);
  if (!template) throw new NotFoundError(`Template '${request.template_id}' not found`);
  const missing = template.variables.filter(
    (variable) => variable.required && !request.variables[variable.name]?.trim(),
  );
  if (missing.length) {
    throw new RequestValidationError(
      missing.map((variable) => ({
        type: 'missing',
        loc: ['body', 'variables', variable.name],
        msg: 'Field required',
        input: request.variables,
      })),
    );
  }
  if (!template.languages.includes(request.language)) {
    throw new RequestValidationError([
      {
        type: 'value_error',
        loc: ['body', 'language'],
        msg: `Value error, template ${template.id} is available in ${template.languages.join(', ')}`,
        input: request.language,
        ctx: { error: 'unsupported language' },
      },
    ]);
  }
  const definition = template.workflow_definition;
  if ('nodes' in definition && request.generate_with_ai) {
    throw new RequestValidationError([
      {
        type: 'value_error',
        loc: ['body', 'generate_with_ai'],
        msg: `Value error, template ${template.id} is a conversation flow; generate_with_ai applies to the templates that are a prompt`,
        input: true,
        ctx: { error: 'not for a conversation flow' },
      },
    ]);
  }
  return createAgent(orgId, {
    name: request.agent_name,
    workflow_definition:
      'nodes' in definition
        ? (fillTemplateDeep(definition, request.variables) as unknown as Record<string, unknown>)
        : await promptFromTemplate(orgId, template, definition, request),
    template_context_variables: request.variables,
    call_disposition_codes: template.call_disposition_codes,
    workflow_configurations: { language: request.language },
  });
}

/** A prompt template's definition: its texts filled, its questions the template's or written by the model. */
async function promptFromTemplate(
  orgId: number,
  template: AgentTemplate,
  definition: PromptTemplate,
  request: { variables: Record<string, string>; language: string; generate_with_ai: boolean },
) {
  const steps = request.generate_with_ai
    ? await writeQuestions(orgId, request.language, fillTemplate(template.brief, request.variables))
    : definition.steps;
  return {
    template_id: template.id,
    language: request.language,
    greeting: fillTemplate(definition.greeting, request.variables),
    steps: steps.map((step) => fillTemplate(step, request.variables)),
    closing: fillTemplate(definition.closing, request.variables),
  };
}

/** The model writes a phone agent's questions, one per topic line of `brief` (from-template, from-script). */
async function writeQuestions(orgId: number, language: string, brief: string): Promise<string[]> {
  const { model } = await modelFor(orgId);
  const written = await model.complete({
    system: `Write one question per topic for a phone agent, language ${language}.`,
    prompt: brief,
  });
  return written
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
}

async function fetchPage(url: string): Promise<{ title?: string; text: string }> {
  let html: string;
  try {
    const response = await websiteFetch(url);
    if (!response.ok) throw new BadRequestError(`The website answered ${response.status}`);
    html = await response.text();
  } catch (error) {
    if (error instanceof BadRequestError) throw error;
    throw new BadRequestError(`The website could not be fetched: ${(error as Error).message}`);
  }
  return pageText(html);
}

/**
 * The language model reads the call flow from the script and the facts from the script and the
 * website (fetched through the SSRF guard); the values get their sources and the script's facts
 * win over the website's (domain rules). Creates nothing.
 */
export async function analyzeScript(
  orgId: number,
  request: { script_text: string; url?: string; company_name: string; language: string },
) {
  const site = request.url ? { url: request.url, ...(await fetchPage(request.url)) } : null;
  const { model } = await modelFor(orgId);
  const reading = await readScript(model, {
    script: request.script_text,
    website: site,
    companyName: request.company_name,
    language: request.language,
  });
  const flow = reading.call_flow;
  const { facts, conflicts } = mergeFacts(
    factsWithSource(reading.script_facts, 'script'),
    site && reading.website_facts ? factsWithSource(reading.website_facts, 'website') : null,
  );
  return {
    company_name: request.company_name || reading.company_name?.trim() || '',
    language: request.language,
    script_language: languageTag(reading.script_language),
    call_flow: {
      greeting: sourced(flow.greeting, 'script'),
      steps: sourcedAll(flow.steps, 'script'),
      objections: flow.objections
        .filter(({ objection, answer }) => objection.trim() && answer.trim())
        .map(({ objection, answer }) => ({
          objection: objection.trim(),
          answer: answer.trim(),
          source: 'script' as const,
        })),
      mandatory_phrases: sourcedAll(flow.mandatory_phrases, 'script'),
      data_to_collect: sourcedAll(flow.data_to_collect, 'script'),
      branches: placedBranches(flow),
    },
    facts,
    conflicts,
  };
}

/** The branches the model read, trimmed, each on one of the steps (a branch the model misplaced is left out). */
function placedBranches(flow: ScriptReading['call_flow']) {
  const branches = flow.branches
    .map((branch) => ({
      question: branch.question.trim(),
      answer: branch.answer.trim(),
      steps: branch.steps.map((step) => step.trim()).filter(Boolean),
      closing: branch.closing?.trim() || null,
      source: 'script' as const,
    }))
    .filter((branch) => branch.answer);
  const misplaced = new Set(misplacedBranches({ steps: flow.steps, branches }).map((issue) => issue.branch));
  return branches.filter((_branch, index) => !misplaced.has(index));
}

/** A BCP 47 tag as the model gave it, or null for anything else. */
const languageTag = (value: string | null) =>
  value && /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8}){0,3}$/.test(value.trim()) ? value.trim() : null;

/** An agent from an analysis: its call flow becomes the definition, its facts the agent's variables. */
export async function createFromScript(
  orgId: number,
  request: { agent_name: string; analysis: ScriptAnalysis; generate_with_ai: boolean },
) {
  const { call_flow: flow, facts } = request.analysis;
  if (flow.branches.length) return createFlowFromScript(orgId, request);
  // With the model, the script's steps and the data it must collect become the agent's own questions.
  const topics = [...flow.steps, ...flow.data_to_collect].map((item) => item.value);
  const steps = request.generate_with_ai
    ? await writeQuestions(orgId, request.analysis.language, topics.join('\n'))
    : flow.steps.map((step) => step.value);
  const agent = await createAgent(orgId, {
    name: request.agent_name,
    workflow_definition: {
      language: request.analysis.language,
      greeting: flow.greeting?.value ?? `Hello, this is ${request.analysis.company_name}.`,
      steps,
      mandatory_phrases: flow.mandatory_phrases.map((phrase) => phrase.value),
      objections: flow.objections.map(({ objection, answer }) => ({ objection, answer })),
      data_to_collect: flow.data_to_collect.map((item) => item.value),
    },
    template_context_variables: scriptVariables(request.analysis.company_name, facts),
    call_disposition_codes: {},
    workflow_configurations: { language: request.analysis.language },
  });
  return withFaq(orgId, agent, request.analysis);
}

/**
 * An agent from an analysis whose script branches: a conversation flow (shared/domain/script-flow.ts)
 * with the script's own words; 422 when a branch is not on one of the steps, when the model is
 * asked to rewrite the steps (the branches hang on their words), or when the flow breaks a rule.
 */
async function createFlowFromScript(
  orgId: number,
  request: { agent_name: string; analysis: ScriptAnalysis; generate_with_ai: boolean },
) {
  const { call_flow: flow, facts } = request.analysis;
  const at: Loc = ['body', 'analysis', 'call_flow'];
  const issues: ValidationErrorItem[] = misplacedBranches({
    steps: flow.steps.map((step) => step.value),
    branches: flow.branches,
  }).map((issue) => ({
    type: 'value_error',
    loc: [...at, 'branches', issue.branch, 'question'],
    msg: `Value error, ${issue.message}`,
    input: flow.branches[issue.branch]!.question,
    ctx: { error: issue.message },
  }));
  if (request.generate_with_ai)
    issues.push({
      type: 'value_error',
      loc: ['body', 'generate_with_ai'],
      msg: "Value error, a script with branches becomes a conversation flow in the script's own words; generate_with_ai applies to a script without branches",
      input: true,
      ctx: { error: 'not for a script with branches' },
    });
  if (issues.length) throw new RequestValidationError(issues);
  const definition = scriptFlow(
    {
      greeting: flow.greeting?.value ?? null,
      steps: flow.steps.map((step) => step.value),
      objections: flow.objections,
      mandatory_phrases: flow.mandatory_phrases.map((phrase) => phrase.value),
      data_to_collect: flow.data_to_collect.map((item) => item.value),
      branches: flow.branches,
    },
    request.analysis.company_name,
  )!;
  const checked = FlowDefinition.safeParse(definition);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    const error = `the flow made of the script is not valid at ${issue.path.join('.')}: ${issue.message}`;
    throw new RequestValidationError([
      { type: 'value_error', loc: at, msg: `Value error, ${error}`, input: null, ctx: { error } },
    ]);
  }
  const agent = await createAgent(orgId, {
    name: request.agent_name,
    workflow_definition: definition as unknown as Record<string, unknown>,
    template_context_variables: scriptVariables(request.analysis.company_name, facts),
    call_disposition_codes: {},
    workflow_configurations: { language: request.analysis.language },
  });
  return withFaq(orgId, agent, request.analysis);
}

/**
 * The analysis' FAQ facts go to the new agent's knowledge base (searched on every caller turn). An
 * agent whose document could not be written is archived before the error answers, so a retry
 * does not leave a second, active agent without its FAQ.
 */
async function withFaq<T extends { id: number }>(orgId: number, agent: T, analysis: ScriptAnalysis): Promise<T> {
  const document = faqDocument(analysis.company_name, analysis.facts.faq);
  if (!document) return agent;
  try {
    await addKnowledgeDocument(orgId, String(agent.id), document);
  } catch (error) {
    await setAgentStatus(orgId, String(agent.id), 'archived');
    throw error;
  }
  return agent;
}

/** The facts of an analysis as the agent's variables. */
const scriptVariables = (companyName: string, facts: ScriptAnalysis['facts']) => ({
  company_name: companyName,
  ...(facts.offer ? { offer: facts.offer.value } : {}),
  ...(facts.hours ? { hours: facts.hours.value } : {}),
  ...(facts.address ? { address: facts.address.value } : {}),
  ...(facts.prices.length ? { prices: facts.prices.map((price) => price.value).join('; ') } : {}),
});
