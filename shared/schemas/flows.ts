import * as z from 'zod';
import { MAX_EXPRESSION_CHARS } from '../domain/flow-expressions.ts';
import { lintFlow, type FlowDefinition as FlowDefinitionRecord } from '../domain/flows.ts';
import { nameText } from './common.ts';
import { guardedUrl } from './outbound-url.ts';

/**
 * `workflow_definition` as a conversation flow (docs/flows.md): one OpenAPI component per node
 * type, the edges, and the rules between them (shared/domain/flows.ts) as 422s at their place.
 */
export const FLOW_CAPS = { nodes: 64, edges: 256, extract: 32, tools: 32, documents: 64, prompt: 20_000 } as const;

const NodeId = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,48}$/)
  .openapi({ maxLength: 48 })
  .openapi({ description: 'Unique in the flow; letters, digits, `_` and `-`, at most 48.', example: 'verify_age' });
const NodeName = nameText(z.string().min(1).max(100)).openapi({
  description: 'Unique in the flow (case ignored); what the run and the live events call the step.',
  example: 'Verify age',
});
const Prompt = z.string().min(1).max(FLOW_CAPS.prompt);
const Language = z
  .string()
  .regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$/)
  .openapi({ maxLength: 12 })
  .openapi({ description: "The language spoken in this step, if not the call's (`pl`, `en-GB`).", example: 'en' });
const Position = z
  .object({ x: z.number().gte(-1e6).lte(1e6), y: z.number().gte(-1e6).lte(1e6) })
  .optional()
  .openapi({ description: "Where the console's editor draws the node; not read by calls." });

export const FlowVariable = z
  .object({
    name: z
      .string()
      .regex(/^[a-z][a-z0-9_]{0,63}$/)
      .refine((name) => name !== 'call_disposition', 'call_disposition is the disposition, not a variable')
      .openapi({ maxLength: 64 })
      .openapi({ description: 'snake_case; unique in the flow; the key in `gathered_context`.', example: 'age' }),
    type: z.enum(['string', 'number', 'boolean']),
    hint: z.string().max(500).optional().openapi({ description: 'What to extract, for the model.' }),
  })
  .openapi('FlowVariable', { description: 'A variable the model extracts from the conversation.' });

const conversationFields = {
  prompt: Prompt.openapi({ description: 'What the agent does in this step (with the global instructions).' }),
  tools: z
    .array(z.string().min(1).max(64))
    .max(FLOW_CAPS.tools)
    .optional()
    .openapi({ description: "Names of the agent's HTTP tools offered in this step; no other is. Default: none." }),
  documents: z
    .array(z.string().min(1).max(64))
    .max(FLOW_CAPS.documents)
    .optional()
    .openapi({ description: 'Ids of the knowledge documents searched in this step. Default: all of them.' }),
  extract: z.array(FlowVariable).max(FLOW_CAPS.extract).optional().openapi({
    description:
      "Variables to extract before the step's own edges may be taken (the model fills them through the `save_variables` function).",
  }),
  interruptible: z.boolean().optional().openapi({
    description:
      "`false`: the caller's words do not cut what the agent says in this step (a disclosure). Default `true`.",
  }),
  language: Language.optional(),
  position: Position,
};

export const FlowStartNode = z
  .object({
    id: NodeId,
    type: z.literal('startCall'),
    name: NodeName,
    greeting: z
      .string()
      .min(1)
      .max(2000)
      .optional()
      .openapi({ description: 'Said first, unless `workflow_configurations.first_message` is set.' }),
    ...conversationFields,
    pre_call_fetch: z
      .object({
        url: guardedUrl(
          'Fetched (GET, JSON object) as the call starts; `{{initial_context.<key>}}` is filled in.',
          'answer at most 64 kB, 5 s',
        ),
        variables: z
          .array(
            z
              .string()
              .regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/)
              .openapi({ maxLength: 64 }),
          )
          .min(1)
          .max(FLOW_CAPS.extract)
          .openapi({ description: 'Top-level keys of the answer that become variables (and call details).' }),
      })
      .optional()
      .openapi({ description: 'Variables fetched before the call; a failed fetch leaves them unset.' }),
  })
  .openapi('FlowStartNode', {
    description:
      'Where every call starts: the greeting, then a conversation step (the caller may end the call from it, as from any conversation step: see FlowAgentNode).',
    example: {
      id: 'start',
      type: 'startCall',
      name: 'Greeting',
      greeting: 'Hello, this is North Clinic.',
      prompt: 'Ask the caller for their age.',
      extract: [{ name: 'age', type: 'number', hint: "The caller's age in years" }],
    },
  });

export const FlowAgentNode = z
  .object({ id: NodeId, type: z.literal('agentNode'), name: NodeName, ...conversationFields })
  .openapi('FlowAgentNode', {
    description:
      "A conversation step: its prompt, tools, documents and variables. In every conversation step (and the startCall) the caller may end the call: the model is offered `end_call` with the call's closing phrase when none of the step's transitions fits; the run's path then ends in that step with the reason `the caller wanted to end the call`.",
    example: {
      id: 'disclosure',
      type: 'agentNode',
      name: 'Disclosure',
      prompt: 'Read the recording disclosure word for word, then ask whether the caller consents.',
      interruptible: false,
      extract: [{ name: 'consent', type: 'boolean', hint: 'Whether the caller agrees' }],
    },
  });

export const FlowTransferNode = z
  .object({
    id: NodeId,
    type: z.literal('transferCall'),
    name: NodeName,
    destination: z.string().min(1).max(100).optional().openapi({
      description:
        "A name among the agent's transfer destinations (`workflow_configurations.transfer`); the first by default. A call that cannot be transferred (a chat) stays in the step before.",
    }),
    position: Position,
  })
  .openapi('FlowTransferNode', {
    description: 'Hands the call to a person: the transfer phrase, then the transfer.',
    example: { id: 'human', type: 'transferCall', name: 'To a person', destination: 'front_desk' },
  });

export const FlowEndNode = z
  .object({
    id: NodeId,
    type: z.literal('endCall'),
    name: NodeName,
    closing: z
      .string()
      .min(1)
      .max(2000)
      .optional()
      .openapi({ description: "Said before hanging up; default the call's closing phrase." }),
    extract: conversationFields.extract.openapi({
      description: 'Variables extracted from the whole conversation as the call ends.',
    }),
    disposition: z
      .string()
      .min(1)
      .max(100)
      .optional()
      .openapi({ description: 'The disposition code the call ends with (`call_disposition_codes`).' }),
    position: Position,
  })
  .openapi('FlowEndNode', {
    description:
      'Ends the call: the closing words, the final extraction, the disposition. A caller who wants to end the call can do so from any conversation step without one (`end_call`); a global transition to an endCall (`The caller says "goodbye"`) gives that way out its own closing and disposition, and is taken first.',
    example: { id: 'done', type: 'endCall', name: 'Goodbye', closing: 'Thank you, goodbye.', disposition: 'confirmed' },
  });

export const FlowGlobalNode = z
  .object({
    id: NodeId,
    type: z.literal('globalNode'),
    name: NodeName,
    prompt: Prompt.openapi({ description: 'Instructions added to every step.' }),
    position: Position,
  })
  .openapi('FlowGlobalNode', {
    description: 'Instructions for every step; its edges are global transitions, offered in every step.',
    example: { id: 'global', type: 'globalNode', name: 'Everywhere', prompt: 'Be brief and polite.' },
  });

export const FlowNode = z
  .discriminatedUnion('type', [FlowStartNode, FlowAgentNode, FlowTransferNode, FlowEndNode, FlowGlobalNode])
  .openapi('FlowNode');

export const FlowEdge = z
  .object({
    source: NodeId.openapi({ description: 'The node the transition leaves (a globalNode: from any step).' }),
    target: NodeId.openapi({ description: 'The node it enters.' }),
    label: z.string().min(1).max(100).optional(),
    condition: z.string().min(1).max(1000).optional().openapi({
      description:
        'In words, judged by the model: offered to it as a function (`go_to_<target>`) it calls to move the call on.',
      example: 'The caller is 18 or older',
    }),
    expression: z.string().min(1).max(MAX_EXPRESSION_CHARS).optional().openapi({
      description:
        'On the gathered variables, checked before the model is asked: comparisons (`==`, `!=`, `<`, `<=`, `>`, `>=`) of variables and literals (numbers, quoted text, `true`, `false`, `null`), `and`, `or`, `not`, parentheses. With a `condition` too, both must hold. With neither, the edge is taken once the step is complete.',
      example: 'age >= 18',
    }),
    position: Position,
  })
  .openapi('FlowEdge', {
    description:
      "A transition. A step's own edges wait for its variables to be extracted; global ones (out of the globalNode) do not.",
  });

export const FlowDefinition = z
  .object({
    nodes: z.array(FlowNode).min(1).max(FLOW_CAPS.nodes),
    edges: z.array(FlowEdge).max(FLOW_CAPS.edges),
    closing: z.string().min(1).max(2000).optional().openapi({
      description:
        "What the agent says when the caller ends the call in a step that is not an end (`end_call`, offered in every conversation step), and an endCall without its own `closing` too. Default: the call's closing phrase in its language (`Thank you for your time. Goodbye.`).",
      example: 'Thank you for calling North Clinic. Goodbye.',
    }),
  })
  .superRefine((flow, context) => {
    // The rules between the parts, only once every part is valid (as Pydantic's model validators).
    if (context.issues.length) return;
    for (const issue of lintFlow(flow as FlowDefinitionRecord)) {
      context.addIssue({ code: 'custom', path: issue.path, message: issue.message });
    }
  })
  .openapi('FlowDefinition', {
    description:
      '`workflow_definition` as a conversation flow: exactly one startCall, every node reachable from it, an endCall reachable, unique node ids and names, unique variable names, no edge out of an endCall or a transferCall.',
    example: {
      nodes: [
        {
          id: 'start',
          type: 'startCall',
          name: 'Greeting',
          greeting: 'Hello, this is North Clinic.',
          prompt: 'Ask the caller for their age.',
          extract: [{ name: 'age', type: 'number', hint: "The caller's age in years" }],
        },
        { id: 'adult', type: 'agentNode', name: 'Adult offer', prompt: 'Offer the adult plan.' },
        { id: 'done', type: 'endCall', name: 'Goodbye', closing: 'Thank you, goodbye.' },
      ],
      edges: [
        { source: 'start', target: 'adult', expression: 'age >= 18' },
        { source: 'start', target: 'done', expression: 'age < 18' },
        { source: 'adult', target: 'done', condition: 'The caller has no more questions' },
      ],
    },
  });
