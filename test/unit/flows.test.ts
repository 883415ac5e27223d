import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../shared/api/routes.ts';
import { holds, parseExpression } from '../../shared/domain/flow-expressions.ts';
import {
  chooseTransition,
  coerceVariable,
  deterministicTransition,
  modelTransitions,
  nodeById,
  type Transition,
} from '../../shared/domain/flow-transitions.ts';
import { lintFlow, pathAfterTakeBack, type FlowDefinition, type FlowNode } from '../../shared/domain/flows.ts';
import { parseRequest } from '../../shared/http/request.ts';
import { RequestValidationError, type ValidationErrorItem } from '../../shared/http/validation-error.ts';

/** start (asks the age) → adult | minor by the age, adult → done by the model, a global "human" transition. */
const FLOW: FlowDefinition = {
  nodes: [
    {
      id: 'start',
      type: 'startCall',
      name: 'Greeting',
      prompt: 'Ask the age.',
      extract: [{ name: 'age', type: 'number' }],
    },
    {
      id: 'adult',
      type: 'agentNode',
      name: 'Adult',
      prompt: 'Offer.',
      extract: [{ name: 'consent', type: 'boolean' }],
    },
    { id: 'minor', type: 'endCall', name: 'Minor', closing: 'Sorry, adults only.' },
    { id: 'done', type: 'endCall', name: 'Done' },
    { id: 'human', type: 'transferCall', name: 'Human' },
    { id: 'global', type: 'globalNode', name: 'Everywhere', prompt: 'Be brief.' },
  ],
  edges: [
    { source: 'start', target: 'adult', expression: 'age >= 18' },
    { source: 'start', target: 'minor', expression: 'age < 18' },
    { source: 'adult', target: 'done', condition: 'The caller "agrees"' },
    { source: 'adult', target: 'minor', condition: 'The caller refuses', expression: 'consent == false' },
    { source: 'global', target: 'human', condition: 'The caller asks for a "human"' },
  ],
};
const withChanges = (change: (flow: FlowDefinition) => void): FlowDefinition => {
  const flow = structuredClone(FLOW);
  change(flow);
  return flow;
};

describe('flow expressions', () => {
  it.each([
    ['age >= 18', { age: 18 }, true],
    ['age >= 18', { age: 17 }, false],
    ['age >= 18', {}, false],
    ['age < 18', {}, false],
    ['consent == true', { consent: true }, true],
    ['consent', { consent: true }, true],
    ['not consent', { consent: false }, true],
    ['consent == false', {}, false],
    ['plan == "gold" and age > 20', { plan: 'gold', age: 21 }, true],
    ["plan == 'gold' or age > 20", { plan: 'silver', age: 18 }, false],
    ['not (age < 18 or consent == false)', { age: 30, consent: true }, true],
    ['age != null', { age: 0 }, true],
    ['age == null', {}, true],
    ['name < 5', { name: 'Ann' }, false],
    ['name', { name: '' }, false],
  ])('%s with %j holds: %s', (source, variables, expected) => {
    expect(holds(parseExpression(source), variables)).toBe(expected);
  });

  it.each([
    ['', /empty/],
    ['age >=', /ends too early/],
    ['age = 18', /unexpected character/],
    ['(age > 1', /not closed/],
    ['age > 1 age', /unexpected age/],
    ['process.exit()', /unexpected character/],
    ['and', /unexpected and/],
    [`${'('.repeat(20)}a${')'.repeat(20)}`, /nested more than/],
  ])('refuses %j', (source, error) => {
    expect(() => parseExpression(source)).toThrow(error);
  });
});

describe('the rules of a flow (lintFlow)', () => {
  it('a sound flow has none', () => expect(lintFlow(FLOW)).toEqual([]));

  it.each<[string, (flow: FlowDefinition) => void, { path: (string | number)[]; message: RegExp }[]]>([
    [
      'no start',
      (flow) => (flow.nodes[0]!.type = 'agentNode'),
      [{ path: ['nodes'], message: /exactly one startCall node; it has none/ }],
    ],
    [
      'two starts',
      (flow) => flow.nodes.push({ id: 'start2', type: 'startCall', name: 'Again', prompt: 'p' }),
      [
        { path: ['nodes', 6, 'type'], message: /exactly one startCall/ },
        { path: ['nodes', 6], message: /cannot be reached/ },
      ],
    ],
    [
      'two globals',
      (flow) => flow.nodes.push({ id: 'g2', type: 'globalNode', name: 'G2', prompt: 'p' }),
      [{ path: ['nodes', 6, 'type'], message: /at most one globalNode/ }],
    ],
    [
      'a duplicate id',
      (flow) => (flow.nodes[3]!.id = 'minor'),
      [
        { path: ['nodes', 3, 'id'], message: /node id minor is used twice/ },
        { path: ['edges', 2, 'target'], message: /no node has the id done/ },
      ],
    ],
    [
      'a duplicate name (case ignored)',
      (flow) => (flow.nodes[3]!.name = 'minor'),
      [{ path: ['nodes', 3, 'name'], message: /node name minor is used twice/ }],
    ],
    [
      'an edge to nowhere',
      (flow) => (flow.edges[2]!.target = 'nowhere'),
      [
        { path: ['edges', 2, 'target'], message: /no node has the id nowhere/ },
        { path: ['nodes', 3], message: /node done cannot be reached/ },
      ],
    ],
    [
      'an edge out of an end',
      (flow) => flow.edges.push({ source: 'done', target: 'adult', condition: 'again' }),
      [{ path: ['edges', 5, 'source'], message: /no edge leaves a endCall node/ }],
    ],
    [
      'an edge out of a transfer',
      (flow) => flow.edges.push({ source: 'human', target: 'adult', condition: 'again' }),
      [{ path: ['edges', 5, 'source'], message: /no edge leaves a transferCall node/ }],
    ],
    [
      'an edge into the start',
      (flow) => flow.edges.push({ source: 'adult', target: 'start', condition: 'again' }),
      [{ path: ['edges', 5, 'target'], message: /no edge leads to a startCall node/ }],
    ],
    [
      'an unreachable step',
      (flow) => flow.nodes.push({ id: 'lost', type: 'agentNode', name: 'Lost', prompt: 'p' }),
      [{ path: ['nodes', 6], message: /node lost cannot be reached/ }],
    ],
    [
      'no reachable end',
      (flow) => {
        flow.nodes = flow.nodes.filter((node) => node.type !== 'endCall');
        flow.edges = flow.edges.filter((edge) => edge.target !== 'done' && edge.target !== 'minor');
      },
      [{ path: ['nodes'], message: /no endCall node can be reached/ }],
    ],
    [
      'a variable named twice',
      (flow) => ((flow.nodes[1] as { extract: { name: string }[] }).extract[0]!.name = 'age'),
      [
        { path: ['nodes', 1, 'extract', 0, 'name'], message: /variable age is named twice/ },
        { path: ['edges', 3, 'expression'], message: /consent is not a variable/ },
      ],
    ],
    [
      'an invalid expression',
      (flow) => (flow.edges[0]!.expression = 'age >> 18'),
      [{ path: ['edges', 0, 'expression'], message: /invalid expression: unexpected >/ }],
    ],
    [
      'an expression on an unknown variable',
      (flow) => (flow.edges[0]!.expression = 'height > 2'),
      [{ path: ['edges', 0, 'expression'], message: /height is not a variable of the flow/ }],
    ],
    [
      'a global transition without a condition',
      (flow) => delete flow.edges[4]!.condition,
      [{ path: ['edges', 4, 'condition'], message: /global transition needs a condition/ }],
    ],
  ])('%s', (_case, change, expected) => {
    const issues = lintFlow(withChanges(change));
    expect(issues).toHaveLength(expected.length);
    expected.forEach((issue, index) => {
      expect(issues[index]!.path).toEqual(issue.path);
      expect(issues[index]!.message).toMatch(issue.message);
    });
  });

  it('a variable fetched before the call may be tested', () => {
    const flow = withChanges((changed) => {
      (changed.nodes[0] as Extract<FlowNode, { type: 'startCall' }>).pre_call_fetch = {
        url: 'https://crm.example.com/x',
        variables: ['tier'],
      };
      changed.edges[0]!.expression = 'tier == "gold"';
    });
    expect(lintFlow(flow)).toEqual([]);
  });
});

describe('transitions', () => {
  const node = (id: string) => nodeById(FLOW, id)!;
  const offered = (id: string, target: string): Transition =>
    modelTransitions(FLOW, id).find((transition) => transition.edge.target === target)!;

  it.each<[string, string, Record<string, unknown>, string | null, string | null]>([
    ['variables missing: no edge', 'start', {}, null, null],
    ['the first expression that holds', 'start', { age: 30 }, 'adult', 'age >= 18 held'],
    ['the other branch', 'start', { age: 12 }, 'minor', 'age < 18 held'],
    ['edges with a condition in words wait for the model', 'adult', { consent: false }, null, null],
  ])('deterministic: %s', (_case, from, gathered, target, reason) => {
    const taken = deterministicTransition(FLOW, node(from), gathered);
    expect(taken?.edge.target ?? null).toBe(target);
    expect(taken?.reason ?? null).toBe(reason);
  });

  it('an edge with neither condition nor expression is taken once the step is complete', () => {
    const flow: FlowDefinition = { ...FLOW, edges: [{ source: 'adult', target: 'done' }] };
    expect(deterministicTransition(flow, node('adult'), {})).toBeNull();
    expect(deterministicTransition(flow, node('adult'), { consent: true })).toEqual({
      edge: { source: 'adult', target: 'done' },
      reason: 'the step was complete',
    });
  });

  it('offers the step’s edges in words and the global ones, as functions', () => {
    expect(modelTransitions(FLOW, 'adult').map((transition) => [transition.functionName, transition.global])).toEqual([
      ['go_to_done', false],
      ['go_to_minor', false],
      ['go_to_human', true],
    ]);
    expect(modelTransitions(FLOW, 'start').map((transition) => transition.functionName)).toEqual(['go_to_human']);
  });

  it.each<[string, string, string, Record<string, unknown>, string | RegExp]>([
    ['before extraction: refused', 'adult', 'done', {}, /first extract consent with save_variables/],
    ['after extraction: taken', 'adult', 'done', { consent: true }, 'the model judged "The caller "agrees""'],
    ['the expression must hold too', 'adult', 'minor', { consent: true }, /consent == false does not hold/],
    [
      'condition and expression',
      'adult',
      'minor',
      { consent: false },
      'the model judged "The caller refuses" and consent == false held',
    ],
    [
      'a global transition does not wait for extraction',
      'adult',
      'human',
      {},
      'global transition: the model judged "The caller asks for a "human""',
    ],
  ])('model-chosen: %s', (_case, from, target, gathered, expected) => {
    const result = chooseTransition(offered(from, target), node(from), gathered);
    if (typeof expected === 'string') expect(result).toEqual({ edge: offered(from, target).edge, reason: expected });
    else expect((result as { refused: string }).refused).toMatch(expected);
  });

  it.each<['string' | 'number' | 'boolean', unknown, unknown]>([
    ['number', '42', 42],
    ['number', 'forty', undefined],
    ['number', '', undefined],
    ['boolean', 'yes', true],
    ['boolean', false, false],
    ['boolean', 'maybe', undefined],
    ['string', '  Anna ', 'Anna'],
    ['string', null, undefined],
  ])('a %s from %j is %j', (type, value, expected) => {
    expect(coerceVariable(type, value)).toBe(expected);
  });
});

function errorsOf(body: unknown): ValidationErrorItem[] {
  const route = ROUTES.find((candidate) => candidate.operationId === 'createAgent')!;
  const event = {
    body: JSON.stringify(body),
    headers: { 'Content-Type': 'application/json' },
    multiValueHeaders: {},
    httpMethod: 'POST',
    isBase64Encoded: false,
    path: '/api/v1/agents',
    pathParameters: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    stageVariables: null,
    resource: '/api/v1/agents',
    requestContext: {} as APIGatewayProxyEvent['requestContext'],
  } as APIGatewayProxyEvent;
  try {
    parseRequest(route, event);
  } catch (error) {
    if (error instanceof RequestValidationError) return error.items;
    throw error;
  }
  return [];
}

describe('a flow written to POST /agents: FastAPI-exact 422s inside the graph', () => {
  it('accepts a sound flow, and a flat definition as before', () => {
    expect(errorsOf({ name: 'Flow', workflow_definition: FLOW })).toEqual([]);
    expect(errorsOf({ name: 'Flat', workflow_definition: { prompt: 'Hi', steps: ['a'], anything: 1 } })).toEqual([]);
  });

  it('a field of a node: the loc points at it', () => {
    const flow = withChanges((changed) => ((changed.nodes[3] as { prompt?: string }).prompt = 'x'));
    (flow.nodes[1] as { prompt: unknown }).prompt = '';
    expect(errorsOf({ name: 'Flow', workflow_definition: flow })).toEqual([
      {
        type: 'string_too_short',
        loc: ['body', 'workflow_definition', 'nodes', 1, 'prompt'],
        msg: 'String should have at least 1 character',
        input: '',
        ctx: { min_length: 1 },
      },
    ]);
  });

  it('a rule between the parts: a value_error at its place', () => {
    const flow = withChanges((changed) => (changed.edges[1]!.target = 'ghost'));
    expect(errorsOf({ name: 'Flow', workflow_definition: flow })).toEqual([
      {
        type: 'value_error',
        loc: ['body', 'workflow_definition', 'edges', 1, 'target'],
        msg: 'Value error, no node has the id ghost',
        input: 'ghost',
        ctx: { error: 'no node has the id ghost' },
      },
    ]);
  });

  it('an unknown node type and the size caps', () => {
    const items = errorsOf({
      name: 'Flow',
      workflow_definition: {
        nodes: [{ id: 'a', type: 'menuNode', name: 'A' }, ...FLOW.nodes],
        edges: Array.from({ length: 257 }, () => FLOW.edges[0]),
      },
    });
    expect(items.map((item) => [item.type, item.loc])).toEqual([
      ['union_tag_invalid', ['body', 'workflow_definition', 'nodes', 0]],
      ['too_long', ['body', 'workflow_definition', 'edges']],
    ]);
    const tags = "'startCall', 'agentNode', 'transferCall', 'endCall', 'globalNode'";
    expect(items[0]).toEqual({
      type: 'union_tag_invalid',
      loc: ['body', 'workflow_definition', 'nodes', 0],
      msg: `Input tag 'menuNode' found using 'type' does not match any of the expected tags: ${tags}`,
      input: { id: 'a', type: 'menuNode', name: 'A' },
      ctx: { discriminator: "'type'", tag: 'menuNode', expected_tags: tags },
    });
  });
});

describe('a flow path across a transfer nobody took', () => {
  const step = (node_id: string, entered_at: string, left_at: string | null, reason: string | null = null) => ({
    node_id,
    name: node_id,
    entered_at,
    left_at,
    edge: null,
    reason,
  });
  const before = [step('start', 't0', 't1', 'the step was complete'), step('human', 't1', null)];
  const after = [step('start', 't5', null)];

  it.each([
    [
      'the transfer step is left as the agent takes the call back; the part after follows from the start',
      before,
      after,
      [
        step('start', 't0', 't1', 'the step was complete'),
        step('human', 't1', 't4', 'nobody took the transfer (busy); the agent took the call back'),
        step('start', 't5', null),
      ],
    ],
    ['a flat definition (no path before) keeps the path after', null, after, after],
    ['no path at all', null, null, null],
  ])('%s', (_case, earlier, later, expected) => {
    expect(pathAfterTakeBack(earlier, later, { outcome: 'busy', resumed_at: 't4' })).toEqual(expected);
  });

  it('leaves the path it was given unchanged', () => {
    const copy = structuredClone(before);
    pathAfterTakeBack(before, after, { outcome: 'busy', resumed_at: 't4' });
    expect(before).toEqual(copy);
  });
});
