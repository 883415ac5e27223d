/**
 * What the model is given in one step of a flow: the step's prompt with the global instructions,
 * the variables it extracts (the `save_variables` function), the transitions it may take (a
 * `go_to_<node>` function each, the pipecat-flows way) and only the step's own tools. Pure.
 */
import { modelTransitions, type Transition } from '../../../shared/domain/flow-transitions.ts';
import {
  isConversationNode,
  type ConversationNode,
  type FlowDefinition,
  type FlowNode,
  type FlowVariable,
} from '../../../shared/domain/flows.ts';
import { renderTemplate, type CallPlan } from './call-plan.ts';
import type { ToolDefinition } from './interfaces.ts';

export const SAVE_VARIABLES = 'save_variables';

/** The built-in tools a step keeps (keys on a phone menu); the others are the flow's business. */
const STEP_BUILT_INS = new Set(['send_digits']);

/** `save_variables`: the model fills the step's variables from what the caller said. */
export function saveVariablesTool(variables: FlowVariable[], final = false): ToolDefinition {
  return {
    name: SAVE_VARIABLES,
    description: final
      ? 'Save what the conversation gave for these variables, as the call ends. Leave out what is unknown.'
      : 'Save what the caller said for these variables as soon as they have said it. Leave out what is unknown.',
    parameters: {
      type: 'object',
      properties: Object.fromEntries(
        variables.map((variable) => [
          variable.name,
          { type: variable.type, ...(variable.hint ? { description: variable.hint } : {}) },
        ]),
      ),
      required: [],
    },
  };
}

const transitionTool = (transition: Transition, target: FlowNode): ToolDefinition => ({
  name: transition.functionName,
  description: `Move the call on to the step ${target.name} when: ${transition.edge.condition}`,
  parameters: { type: 'object', properties: {}, required: [] },
});

/**
 * `end_call` in a step: the caller may end the call from any step (as pipecat-flows' global
 * functions and the flat prompt's `end_call`), with the call's closing; a flow's own way out (a
 * transition to an end step, with its disposition) comes first when one fits.
 */
export const END_CALL = 'end_call';
const callerEndsTool: ToolDefinition = {
  name: END_CALL,
  description:
    'Only when the caller wants to end the call now (they say goodbye, or ask to hang up) and no go_to_ function fits: hang up after your last words. Say the closing in the same answer.',
  parameters: { type: 'object', properties: {}, required: [] },
};

/** The tools offered in a conversation step. */
export function stepTools(plan: CallPlan, flow: FlowDefinition, node: ConversationNode): ToolDefinition[] {
  const own = new Set(node.tools ?? []);
  const byId = new Map(flow.nodes.map((candidate) => [candidate.id, candidate]));
  return [
    ...plan.tools.filter((tool) =>
      plan.httpTools.has(tool.name) ? own.has(tool.name) : STEP_BUILT_INS.has(tool.name),
    ),
    ...(node.extract?.length ? [saveVariablesTool(node.extract)] : []),
    ...modelTransitions(flow, node.id).map((transition) =>
      transitionTool(transition, byId.get(transition.edge.target)!),
    ),
    callerEndsTool,
  ];
}

/** The system prompt of a conversation step. */
export function stepSystemPrompt(
  plan: CallPlan,
  flow: FlowDefinition,
  node: ConversationNode,
  gathered: Record<string, unknown>,
  variables: Record<string, unknown>,
): string {
  const render = (text: string) => renderTemplate(text, variables);
  const global = flow.nodes.find((candidate) => candidate.type === 'globalNode');
  const language = node.language ?? plan.settings.language;
  const missing = (node.extract ?? []).filter((variable) => gathered[variable.name] === undefined);
  const transitions = modelTransitions(flow, node.id);
  return [
    `You are ${plan.agentName}, a voice agent on a phone call. Speak ${language}. Answer in one to three short spoken sentences: no lists, no markup.`,
    global?.type === 'globalNode' && render(global.prompt),
    `Current step: ${node.name}\n${render(node.prompt)}`,
    missing.length &&
      `Find out, and save with ${SAVE_VARIABLES} as soon as the caller says it:\n${missing.map((variable) => `- ${variable.name} (${variable.type})${variable.hint ? `: ${variable.hint}` : ''}`).join('\n')}`,
    transitions.length &&
      `When one of these holds, call its function to move on (the next step's instructions follow):\n${transitions.map((transition) => `- ${transition.functionName}: ${transition.edge.condition}`).join('\n')}`,
    ...plan.callContext,
    `If the caller wants to end the call${transitions.length ? ' and no function above fits' : ''}, say "${plan.phrases.closing}" and call ${END_CALL}.`,
  ]
    .filter((section): section is string => typeof section === 'string' && section.length > 0)
    .join('\n\n');
}

/** The system prompt of the final extraction, as an end step is entered. */
export const FINAL_EXTRACTION_PROMPT = `The call is ending. From the conversation, fill in what you can of the variables with ${SAVE_VARIABLES}. Say nothing.`;

export const conversationNode = (node: FlowNode): ConversationNode | null => (isConversationNode(node) ? node : null);
