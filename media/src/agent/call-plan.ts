/**
 * The agent's brain for one call, built once when the call is answered: the system prompt (from
 * `workflow_definition` with its knowledge box, `template_context_variables`, `initial_context` and the agent's memories),
 * the tools offered to the model (the agent's HTTP tools plus the built-in ones), the voice
 * settings with their defaults, and the knowledge base searched on every caller turn.
 * Pure: the caller loads the data (call-sessions.ts).
 */
import { isFlowDefinition, type FlowDefinition } from '../../../shared/domain/flows.ts';
import { backchannelsFor } from '../../../shared/domain/backchannels.ts';
import { rankPassages } from '../../../shared/domain/knowledge.ts';
import { FlowDefinition as FlowDefinitionSchema } from '../../../shared/schemas/flows.ts';
import type { ToolRecord } from '../../../shared/repositories/agent-resources.ts';
import type { Memory } from '../../../shared/schemas/memories.ts';
import { VOICE_DEFAULTS, WorkflowConfigurations, type VoiceEngine } from '../../../shared/schemas/voice-settings.ts';
import { MAX_KNOWLEDGE_TEXT_CHARS } from '../../../shared/schemas/bounds.ts';
import type { TransferDestination } from '../../../shared/schemas/call-transfer.ts';
import type { SmsPlan } from '../../../shared/schemas/text-messages.ts';
import type { ToolDefinition } from './interfaces.ts';
import { phrasesFor, type Phrases } from './phrases.ts';

export const KNOWLEDGE_PASSAGES_PER_TURN = 3;

export interface CallInput {
  agentName: string;
  workflowDefinition: Record<string, unknown>;
  workflowConfigurations: Record<string, unknown>;
  templateContextVariables: Record<string, unknown>;
  initialContext: Record<string, unknown>;
  /** The goal of the campaign that placed the call (the call variable `campaign_goal`); null: none. */
  campaignGoal?: string | null;
  dispositionCodes: Record<string, unknown>;
  passages: { id: string; document_id: string; title: string; text: string }[];
  tools: ToolRecord[];
  memories: Memory[];
  /** A phone call (a browser or chat session has no provider call to hand on). */
  transferable?: boolean;
  /** A phone call: there is a caller's number to text (a browser or chat session has none). */
  textable?: boolean;
  /** The agent may save notes during the call (`save_note`): not in an agent test's conversation. */
  notes?: boolean;
}

/** Texts during the call (`workflow_configurations.sms`), on a phone call whose agent enabled them. */
export interface CallSmsPlan {
  templates: SmsPlan['templates'];
  allowFreeText: boolean;
  maxPerCall: number;
  /** Where texts go; null: the caller. */
  destination: string | null;
  /** The sending number; null: the call's own. */
  fromNumber: string | null;
}

export interface VoiceSettings {
  language: string;
  voice?: string;
  model?: string;
  temperature: number;
  firstMessage?: string;
  maxCallMs: number;
  silenceTimeoutMs: number;
  /** A chat with no user message this long ends. */
  chatIdleTimeoutMs: number;
  /** Words the caller must say before the agent stops talking (a bare sound never stops it). */
  bargeInMinWords: number;
  /** What ends the caller's turn, and what of their speech stops the agent (`turn_taking`). */
  turnTaking: TurnTaking;
  /** The cascade (speech-to-text, model, text-to-speech) or a speech-to-speech model. */
  engine: VoiceEngine;
  /** Keys the caller presses: when an entry ends. */
  keypad: { collectDigits: number | null; endKey: string | null; timeoutMs: number; sendDigits: boolean };
}

export interface TurnTaking {
  /** `pause`: Deepgram nova-3's endpointing; `flux`: Deepgram Flux's end of turn. */
  endOfTurn: 'pause' | 'flux';
  /** Flux's `EagerEndOfTurn` starts the answer, spoken once `EndOfTurn` confirms it. */
  eager: boolean;
  /** Said alone over the agent, these words do not stop it. */
  backchannels: readonly string[];
  /** The caller's words may cut the agent (false: it finishes first). */
  interruptible: boolean;
}

export interface CallPlan {
  settings: VoiceSettings;
  systemPrompt: string;
  agentName: string;
  /**
   * The greeting has the call's variables in it (`{{initial_context.<key>}}`): its words are the
   * call's own, so its speech is never shared with another call's (greeting-cache.ts).
   */
  greetingVaries: boolean;
  /** `{{initial_context.<key>}}`'s values: the call's `initial_context` over `template_context_variables`. */
  variables: Record<string, unknown>;
  /** The knowledge box, the call details and the agent's notes, as sections of a system prompt (a flow's steps take them too). */
  callContext: string[];
  /** The definition as a conversation flow (flow-brain.ts); null: the flat prompt above. */
  flow: FlowDefinition | null;
  tools: ToolDefinition[];
  httpTools: Map<string, ToolRecord>;
  dispositionCodes: string[];
  /** What the agent says without the model, in the call's language (with the agent's overrides). */
  phrases: Phrases;
  /** Transfer to a person (`workflow_configurations.transfer`), on a phone call. */
  transfer: { destinations: TransferDestination[]; timeoutSeconds: number; continueOnFailure: boolean } | null;
  /** Texts the agent may send (the `send_sms` tool, the control API's command); null: none. */
  sms: CallSmsPlan | null;
  /** The knowledge passages that best match what the caller just said (of these documents only, if given). */
  knowledge: (query: string, documentIds?: readonly string[]) => { title: string; text: string; score: number }[];
}

const TEMPLATE_VARIABLE = /\{\{\s*initial_context\.([A-Za-z0-9_.-]+)\s*\}\}/g;

/** Replaces `{{initial_context.key}}` (whitespace allowed); unknown keys become ''. */
export function renderTemplate(text: string, variables: Record<string, unknown>): string {
  return text.replace(TEMPLATE_VARIABLE, (_match, key: string) => {
    const value = variables[key];
    if (value === undefined || value === null) return '';
    return typeof value === 'object' ? JSON.stringify(value) : String(value);
  });
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() ? value.trim() : undefined;
const strings = (value: unknown): string[] =>
  Array.isArray(value)
    ? value.flatMap((item: unknown) => {
        if (typeof item === 'string') return [item];
        const say = item && typeof item === 'object' ? (item as { say?: unknown }).say : undefined;
        return typeof say === 'string' ? [say] : [];
      })
    : [];

/** Voice settings from `workflow_configurations`, defaults where absent or invalid. */
export function voiceSettings(
  configurations: Record<string, unknown>,
  workflowDefinition: Record<string, unknown>,
): VoiceSettings {
  const parsed = WorkflowConfigurations.safeParse(configurations);
  const settings = parsed.success ? parsed.data : {};
  return {
    language: settings.language ?? VOICE_DEFAULTS.language,
    voice: settings.voice,
    model: settings.model,
    temperature: settings.temperature ?? VOICE_DEFAULTS.temperature,
    firstMessage: settings.first_message ?? text(workflowDefinition.greeting),
    maxCallMs: (settings.max_call_seconds ?? VOICE_DEFAULTS.max_call_seconds) * 1000,
    silenceTimeoutMs: (settings.silence_timeout_seconds ?? VOICE_DEFAULTS.silence_timeout_seconds) * 1000,
    chatIdleTimeoutMs: (settings.chat_idle_timeout_seconds ?? VOICE_DEFAULTS.chat_idle_timeout_seconds) * 1000,
    bargeInMinWords: settings.barge_in_min_words ?? VOICE_DEFAULTS.barge_in_min_words,
    turnTaking: {
      endOfTurn: settings.turn_taking?.end_of_turn ?? 'pause',
      eager: settings.turn_taking?.eager_end_of_turn ?? false,
      backchannels: settings.turn_taking?.backchannels ?? backchannelsFor(settings.language ?? VOICE_DEFAULTS.language),
      interruptible: settings.turn_taking?.interruptible ?? true,
    },
    engine: settings.engine ?? 'cascade',
    keypad: {
      collectDigits: settings.keypad?.collect_digits ?? null,
      endKey: settings.keypad?.end_key === undefined ? '#' : settings.keypad.end_key,
      timeoutMs: (settings.keypad?.timeout_seconds ?? 2) * 1000,
      sendDigits: settings.keypad?.send_digits ?? false,
    },
  };
}

function builtInTools(dispositionCodes: string[], dataToCollect: string[], sendDigits: boolean): ToolDefinition[] {
  return [
    ...(sendDigits
      ? [
          {
            name: 'send_digits',
            description:
              'Press keys on the phone, e.g. to choose in a phone menu or enter a number the call details give you. A comma waits half a second.',
            parameters: {
              type: 'object',
              properties: { digits: { type: 'string', pattern: '^[0-9*#A-D,]{1,32}$' } },
              required: ['digits'],
            },
          },
        ]
      : []),
    ...(dispositionCodes.length
      ? [
          {
            name: 'set_call_disposition',
            description: 'Record how the call went. Call it once the outcome is clear, before end_call.',
            parameters: {
              type: 'object',
              properties: { code: { type: 'string', enum: dispositionCodes } },
              required: ['code'],
            },
          },
        ]
      : []),
    {
      name: 'save_information',
      description: `Save a piece of information the caller gave${dataToCollect.length ? ` (to collect: ${dataToCollect.join('; ')})` : ''}.`,
      parameters: {
        type: 'object',
        properties: { key: { type: 'string', description: 'snake_case name' }, value: { type: 'string' } },
        required: ['key', 'value'],
      },
    },
    {
      name: 'end_call',
      description: 'Hang up after your last words. Say goodbye in the same answer.',
      parameters: { type: 'object', properties: {}, required: [] },
    },
  ];
}

/** `transfer_call`: the model picks a destination by name, from their descriptions. */
function transferTool(destinations: TransferDestination[]): ToolDefinition {
  return {
    name: 'transfer_call',
    description: `Transfer the caller to a person when they ask for one or you cannot help. The caller hears that they are being transferred; do not say goodbye. Destinations:\n${destinations
      .map((destination) => `- ${destination.name}: ${destination.description}`)
      .join('\n')}`,
    parameters: {
      type: 'object',
      properties: {
        destination: { type: 'string', enum: destinations.map((destination) => destination.name) },
        reason: { type: 'string', description: 'Why, in a few words (for the logs).' },
      },
      required: ['destination'],
    },
  };
}

/** `send_sms`: a template by name (from their descriptions), or free text where allowed. */
function sendSmsTool(plan: CallSmsPlan): ToolDefinition {
  const templates = plan.templates.map((template) => `- ${template.name}: ${template.description}`).join('\n');
  return {
    name: 'send_sms',
    description: `Send a text message to ${plan.destination ? 'the number your settings name' : "the caller's phone"} during the call (at most ${plan.maxPerCall}). ${
      templates ? `Templates, by name:\n${templates}\n` : ''
    }${plan.allowFreeText ? 'Or write the text yourself (up to 640 characters).' : 'Only these templates may be sent.'} Tell the caller you sent it; if it is refused, tell them why.`,
    parameters: {
      type: 'object',
      properties: {
        ...(plan.templates.length
          ? { template: { type: 'string', enum: plan.templates.map((template) => template.name) } }
          : {}),
        ...(plan.allowFreeText ? { text: { type: 'string', maxLength: 640 } } : {}),
      },
      required: [],
    },
  };
}

/** `save_note`: the agent's memory, written during the call; read by its next calls (domain/memories.ts). */
const SAVE_NOTE_TOOL: ToolDefinition = {
  name: 'save_note',
  description:
    'Remember something for later calls: what you learned about the caller (a preference, a situation) or about the business. One short sentence.',
  parameters: {
    type: 'object',
    properties: {
      content: { type: 'string', maxLength: 2000 },
      topic: { type: 'string', description: 'A word or two to file it under.' },
      about_caller: { type: 'boolean', description: 'True (the default) when it is about this caller.' },
    },
    required: ['content'],
  },
};

/** A stored flow as the call reads it; null for a flat definition (or one no longer valid). */
export function flowOf(definition: Record<string, unknown>): FlowDefinition | null {
  if (!isFlowDefinition(definition)) return null;
  const parsed = FlowDefinitionSchema.safeParse(definition);
  return parsed.success ? (parsed.data as FlowDefinition) : null;
}

export function buildCallPlan(input: CallInput): CallPlan {
  const flow = flowOf(input.workflowDefinition);
  const start = flow?.nodes.find((node) => node.type === 'startCall');
  // A flow's greeting is its start's: the flat keys the rest reads are absent from it.
  const definition =
    start?.type === 'startCall' && start.greeting
      ? { ...input.workflowDefinition, greeting: start.greeting }
      : input.workflowDefinition;
  // A campaign's goal is a call variable of its own: listed in the call details, and
  // `{{initial_context.campaign_goal}}` in the agent's texts.
  const variables = {
    ...input.templateContextVariables,
    ...input.initialContext,
    ...(input.campaignGoal ? { campaign_goal: input.campaignGoal } : {}),
  };
  const render = (value: string) => renderTemplate(value, variables);
  const settings = voiceSettings(input.workflowConfigurations, definition);
  const configured = WorkflowConfigurations.safeParse(input.workflowConfigurations);
  const phrases = phrasesFor(settings.language, configured.success ? configured.data.phrases : undefined);
  const silencePrompt = text(definition.silence_prompt);
  if (silencePrompt) phrases.silencePrompt = silencePrompt;
  phrases.closing = text(definition.closing) ?? phrases.closing;
  for (const key of Object.keys(phrases) as (keyof Phrases)[]) phrases[key] = render(phrases[key]);
  const greetingVaries = settings.firstMessage !== undefined && settings.firstMessage.search(TEMPLATE_VARIABLE) >= 0;
  if (settings.firstMessage) settings.firstMessage = render(settings.firstMessage);
  // Sorted: stored maps keep no order, and the model should see the same list on every call.
  const dispositionCodes = Object.keys(input.dispositionCodes).sort();
  const dataToCollect = strings(definition.data_to_collect);
  const steps = strings(definition.steps);
  const objections = Array.isArray(definition.objections)
    ? (definition.objections as { objection?: unknown; answer?: unknown }[]).filter(
        (item) => text(item?.objection) && text(item?.answer),
      )
    : [];
  const mandatory = strings(definition.mandatory_phrases);
  const memories = input.memories.filter((memory) => !memory.done);
  // The knowledge box, whole in every prompt (a flow's steps too); bounded again here for a
  // definition stored before its cap.
  const knowledge = text(input.workflowDefinition.knowledge)?.slice(0, MAX_KNOWLEDGE_TEXT_CHARS);
  const callContext = [
    knowledge && `What you know (answer from it when it helps):\n${knowledge}`,
    Object.keys(variables).length &&
      `Call details:\n${Object.entries(variables)
        .map(([key, value]) => `- ${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
        .join('\n')}`,
    memories.length &&
      `Your notes:\n${memories.map((memory) => `- ${memory.topic ? `[${memory.topic}] ` : ''}${memory.content}${memory.due_at ? ` (due ${memory.due_at})` : ''}`).join('\n')}`,
  ].filter((section): section is string => typeof section === 'string' && section.length > 0);

  const sections = [
    `You are ${input.agentName}, a voice agent on a phone call. Speak ${settings.language}. Answer in one to three short spoken sentences: no lists, no markup.`,
    text(definition.prompt) && render(text(definition.prompt)!),
    steps.length &&
      `Conversation plan, in order:\n${steps.map((step, index) => `${index + 1}. ${render(step)}`).join('\n')}`,
    objections.length &&
      `Answers to objections:\n${objections.map((item) => `- "${item.objection}": ${render(String(item.answer))}`).join('\n')}`,
    mandatory.length &&
      `Say these phrases during the call:\n${mandatory.map((phrase) => `- ${render(phrase)}`).join('\n')}`,
    dataToCollect.length &&
      `Collect and save with save_information:\n${dataToCollect.map((item) => `- ${item}`).join('\n')}`,
    ...callContext,
    dispositionCodes.length &&
      `When the outcome is clear, record it with set_call_disposition, one of:\n${dispositionCodes.map((code) => `- ${code}: ${typeof input.dispositionCodes[code] === 'string' ? input.dispositionCodes[code] : JSON.stringify(input.dispositionCodes[code])}`).join('\n')}`,
    `When the conversation is over, say "${phrases.closing}" and call end_call.`,
  ].filter((section): section is string => typeof section === 'string' && section.length > 0);

  const transferPlan = input.transferable && configured.success ? configured.data.transfer : undefined;
  const transfer = transferPlan
    ? {
        destinations: transferPlan.destinations.map((destination) => ({
          ...destination,
          ...(destination.message ? { message: render(destination.message) } : {}),
        })),
        timeoutSeconds: transferPlan.timeout_seconds,
        continueOnFailure: transferPlan.on_failure === 'continue',
      }
    : null;
  const smsSettings = input.textable && configured.success ? configured.data.sms : undefined;
  const sms: CallSmsPlan | null = smsSettings?.enabled
    ? {
        templates: smsSettings.templates,
        allowFreeText: smsSettings.allow_free_text,
        maxPerCall: smsSettings.max_per_call,
        destination: smsSettings.destination ?? null,
        fromNumber: smsSettings.from_number ?? null,
      }
    : null;
  const httpTools = new Map(input.tools.map((tool) => [tool.name, tool]));
  return {
    settings,
    systemPrompt: sections.join('\n\n'),
    agentName: input.agentName,
    greetingVaries,
    variables,
    callContext,
    flow,
    tools: [
      ...input.tools.map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters })),
      ...builtInTools(dispositionCodes, dataToCollect, settings.keypad.sendDigits),
      ...(transfer ? [transferTool(transfer.destinations)] : []),
      ...(sms ? [sendSmsTool(sms)] : []),
      ...(input.notes ? [SAVE_NOTE_TOOL] : []),
    ],
    httpTools,
    dispositionCodes,
    phrases,
    transfer,
    sms,
    knowledge: (query, documentIds) =>
      rankPassages(
        query,
        documentIds ? input.passages.filter((passage) => documentIds.includes(passage.document_id)) : input.passages,
        KNOWLEDGE_PASSAGES_PER_TURN,
      ).map(({ title, text: passage, score }) => ({
        title,
        text: passage,
        score,
      })),
  };
}

/** The knowledge section added to the system prompt of one turn. */
export function knowledgeSection(passages: { title: string; text: string }[]): string {
  if (!passages.length) return '';
  return `\n\nRelevant knowledge (answer from it when it helps):\n${passages.map((passage) => `[${passage.title}] ${passage.text.replace(/\s+/g, ' ')}`).join('\n')}`;
}
