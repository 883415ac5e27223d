import { describe, expect, it } from 'vitest';
import { FlowDefinition as FlowSchema, FlowNode } from '../../shared/schemas/flows.ts';
import { definitionChanges } from '../../web/console/flows/diff.ts';
import { checkedIssues, currentIssues, issuesOf } from '../../web/console/flows/issues.ts';
import {
  addEdge,
  arranged,
  changeType,
  definitionOf,
  editable,
  type FlowDefinition,
  flowFromFlat,
  freeSpot,
  layout,
  newNode,
  type NodeType,
  preCallFetch,
  removeNode,
} from '../../web/console/flows/model.ts';

const FLOW: FlowDefinition = {
  nodes: [
    {
      id: 'start',
      type: 'startCall',
      name: 'Greeting',
      prompt: 'Ask the age.',
      extract: [{ name: 'age', type: 'number' }],
    },
    { id: 'offer', type: 'agentNode', name: 'Offer', prompt: 'Offer a card.' },
    { id: 'done', type: 'endCall', name: 'Goodbye', closing: 'Goodbye.' },
    { id: 'minor', type: 'endCall', name: 'Minor' },
    { id: 'global', type: 'globalNode', name: 'Everywhere', prompt: 'Be brief.' },
  ],
  edges: [
    { source: 'start', target: 'offer', expression: 'age >= 18' },
    { source: 'start', target: 'minor', expression: 'age < 18' },
    { source: 'offer', target: 'done', condition: 'The caller has no more questions' },
  ],
};

describe('the flow editor’s model', () => {
  it('keeps the definition as it was through the editor’s edge keys, its closing too', () => {
    expect(definitionOf(editable(FLOW))).toEqual(FLOW);
    const closed = { ...FLOW, closing: 'Goodbye from North.' };
    expect(definitionOf(editable(closed))).toEqual(closed);
    expect(definitionOf(removeNode(editable(closed), 'minor')).closing).toBe('Goodbye from North.');
  });

  it('draws a flat definition as the valid flow it behaves as', () => {
    const flow = flowFromFlat({ prompt: 'Book visits.', greeting: 'Hello.', closing: 'Bye.' });
    expect(flow.nodes).toMatchObject([
      { type: 'startCall', prompt: 'Book visits.', greeting: 'Hello.' },
      { type: 'endCall', closing: 'Bye.' },
    ]);
    expect(FlowSchema.safeParse(flow).success).toBe(true);
    expect(FlowSchema.safeParse(flowFromFlat({})).success).toBe(true);
  });

  it.each<[NodeType, string, string]>([
    ['agentNode', 'step_1', 'Conversation step 1'],
    ['endCall', 'end_1', 'End 1'],
    ['transferCall', 'transfer_1', 'Transfer 1'],
    ['globalNode', 'global_1', 'Global 1'],
  ])('names a new %s %s, “%s”, and the API accepts it as it is', (type, id, name) => {
    const node = newNode(editable(FLOW), type, { x: 0, y: 0 });
    expect([node.id, node.name]).toEqual([id, name]);
    expect(FlowNode.safeParse(node).success).toBe(true);
  });

  it('never gives a new node an id or a name already taken', () => {
    let flow = editable(FLOW);
    for (let n = 0; n < 3; n += 1)
      flow = { ...flow, nodes: [...flow.nodes, newNode(flow, 'agentNode', { x: 0, y: 0 })] };
    expect(flow.nodes.slice(-3).map((node) => node.id)).toEqual(['step_1', 'step_2', 'step_3']);
  });

  it.each([
    ['a new transition', 'offer', 'minor', true],
    ['the same transition twice', 'start', 'offer', false],
    ['a node to itself', 'offer', 'offer', false],
  ])('adds %s: %s', (_what, source, target, added) => {
    const result = addEdge(editable(FLOW), source, target);
    expect(result.key !== null).toBe(added);
    expect(result.flow.edges.length).toBe(FLOW.edges.length + (added ? 1 : 0));
  });

  it('removes a node with the transitions that leave or enter it', () => {
    const flow = removeNode(editable(FLOW), 'offer');
    expect(flow.nodes.map((node) => node.id)).toEqual(['start', 'done', 'minor', 'global']);
    expect(definitionOf(flow).edges).toEqual([{ source: 'start', target: 'minor', expression: 'age < 18' }]);
  });

  it('lays out nodes without a position in layers from the start, each layer centred', () => {
    const positions = layout(FLOW);
    expect(positions.get('start')).toEqual({ x: 0, y: 0 });
    expect(positions.get('offer')).toEqual({ x: -130, y: 180 });
    expect(positions.get('minor')).toEqual({ x: 130, y: 180 });
    expect(positions.get('done')).toEqual({ x: 0, y: 360 });
    expect(positions.get('global')).toEqual({ x: -520, y: 0 });
    // A node placed by hand stays where it is; arranging places it anew.
    const moved = {
      ...FLOW,
      nodes: FLOW.nodes.map((node) => (node.id === 'done' ? { ...node, position: { x: 900, y: 5 } } : node)),
    };
    expect(layout(moved).get('done')).toEqual({ x: 900, y: 5 });
    expect(arranged(editable(moved)).nodes.find((node) => node.id === 'done')!.position).toEqual({ x: 0, y: 360 });
  });

  it('puts a new node under the selected one (or the lowest), beside whatever is already there', () => {
    const flow = editable(FLOW);
    expect(freeSpot(flow, 'done')).toEqual({ x: 0, y: 540 });
    expect(freeSpot(flow)).toEqual({ x: 0, y: 540 });
    // Under the start are Offer (x -130) and Minor (x 130): the new node goes to their right.
    expect(freeSpot(flow, 'start')).toEqual({ x: 390, y: 180 });
  });
});

describe('changing a step’s kind in place', () => {
  const changed = (id: string, type: NodeType) => {
    const result = changeType(editable(FLOW), id, type);
    return { ...result, definition: definitionOf(result.flow) };
  };

  it('a conversation step made an end: its id, name and extraction kept, its way out dropped, the way in kept', () => {
    const { flow, definition, droppedFields, droppedEdges } = changed('offer', 'endCall');
    expect(definition.nodes[1]).toEqual({ id: 'offer', type: 'endCall', name: 'Offer' });
    expect(droppedFields).toEqual(['prompt']);
    expect(droppedEdges).toBe(1);
    expect(definition.edges).toEqual(FLOW.edges.slice(0, 2));
    // What the change leaves wrong is shown, not mended: the old end is now out of reach.
    expect(checkedIssues(flow).map((issue) => issue.message)).toEqual(['node done cannot be reached from the start']);
  });

  it('an end made a conversation step: the new kind’s default prompt, its transitions all kept, the rest valid', () => {
    const { definition, droppedFields, droppedEdges } = changed('minor', 'agentNode');
    expect(definition.nodes[3]).toEqual({
      id: 'minor',
      type: 'agentNode',
      name: 'Minor',
      prompt: 'Describe what the agent does in this step.',
    });
    expect([droppedFields, droppedEdges]).toEqual([[], 0]);
    expect(definition.edges).toEqual(FLOW.edges);
    expect(FlowSchema.safeParse(definition).success).toBe(true);
  });

  it('the start made a conversation step keeps its prompt and variables, and its transitions; the missing start is the API’s problem to show', () => {
    const { flow, definition, droppedFields } = changed('start', 'agentNode');
    expect(definition.nodes[0]).toEqual({
      id: 'start',
      type: 'agentNode',
      name: 'Greeting',
      prompt: 'Ask the age.',
      extract: [{ name: 'age', type: 'number' }],
    });
    expect(droppedFields).toEqual([]);
    expect(definition.edges).toEqual(FLOW.edges);
    expect(checkedIssues(flow).map((issue) => issue.message)).toContain(
      'a flow has exactly one startCall node; it has none',
    );
  });

  it('a step made the global node loses the transitions into it; its own become global ones', () => {
    const { definition, droppedEdges } = changed('offer', 'globalNode');
    expect(droppedEdges).toBe(1);
    expect(definition.edges).toEqual([FLOW.edges[1], FLOW.edges[2]]);
    expect(definition.nodes[1]).toEqual({ id: 'offer', type: 'globalNode', name: 'Offer', prompt: 'Offer a card.' });
  });

  it('keeps where the step is drawn', () => {
    const flow = editable({
      ...FLOW,
      nodes: FLOW.nodes.map((node) => (node.id === 'done' ? { ...node, position: { x: 4, y: 5 } } : node)),
    });
    expect(changeType(flow, 'done', 'transferCall').flow.nodes[2]).toEqual({
      id: 'done',
      type: 'transferCall',
      name: 'Goodbye',
      position: { x: 4, y: 5 },
    });
  });
});

describe('the API’s 422 on the flow', () => {
  const sent = editable(FLOW);
  const [first, , third] = sent.edges;

  it.each([
    [
      'a node’s field',
      ['body', 'workflow_definition', 'nodes', 1, 'prompt'],
      'String should have at least 1 character',
      { node: 'offer', edge: null, field: 'prompt' },
    ],
    [
      'a field under Pydantic’s union tag',
      ['body', 'workflow_definition', 'nodes', 0, 'startCall', 'extract', 0, 'name'],
      'String should match pattern',
      { node: 'start', edge: null, field: 'extract.0.name' },
    ],
    [
      'a node as a whole',
      ['body', 'workflow_definition', 'nodes', 3],
      'Value error, node minor cannot be reached from the start',
      { node: 'minor', edge: null, field: '', message: 'node minor cannot be reached from the start' },
    ],
    [
      'an edge’s expression',
      ['body', 'workflow_definition', 'edges', 2, 'expression'],
      'invalid',
      { node: null, edge: third!.key, field: 'expression' },
    ],
    [
      'an edge as a whole',
      ['body', 'workflow_definition', 'edges', 0],
      'invalid',
      { node: null, edge: first!.key, field: '' },
    ],
    [
      'the flow as a whole',
      ['body', 'workflow_definition', 'nodes'],
      'no endCall node can be reached from the start',
      { node: null, edge: null, field: 'nodes' },
    ],
    [
      'an index the flow sent does not have',
      ['body', 'workflow_definition', 'nodes', 9, 'name'],
      'invalid',
      { node: null, edge: null, field: 'nodes.9.name' },
    ],
  ])('places %s', (_what, loc, msg, expected) => {
    expect(issuesOf([{ type: 'value_error', loc, msg }], sent)).toEqual([expect.objectContaining(expected)]);
  });

  it('finds nothing in a body that is not a list of items', () => {
    expect(issuesOf('Agent not found', sent)).toEqual([]);
  });
});

describe('the problems shown as the flow is edited', () => {
  const sent = editable(FLOW);
  const fieldProblem = {
    loc: ['body', 'workflow_definition', 'nodes', 1, 'prompt'],
    msg: 'String should have at least 1 character',
  };
  const rejected = { issues: issuesOf([fieldProblem], sent), sent };

  it('checks the rules between the parts as the API does (lintFlow)', () => {
    expect(checkedIssues(sent)).toEqual([]);
    const cut = removeNode(sent, 'offer');
    expect(checkedIssues(cut)).toEqual([
      { node: 'done', edge: null, field: '', message: 'node done cannot be reached from the start' },
    ]);
  });

  it.each<[string, (flow: typeof sent) => typeof sent, number]>([
    ['the flow as it was sent', (flow) => flow, 1],
    [
      'the step only moved',
      (flow) => ({ ...flow, nodes: flow.nodes.map((node) => ({ ...node, position: { x: 5, y: 5 } })) }),
      1,
    ],
    [
      'another step changed',
      (flow) => ({
        ...flow,
        nodes: flow.nodes.map((node) => (node.id === 'done' ? { ...node, closing: 'Bye.' } : node)),
      }),
      1,
    ],
    [
      'the step itself changed',
      (flow) => ({
        ...flow,
        nodes: flow.nodes.map((node) => (node.id === 'offer' ? { ...node, prompt: 'Offer a loan.' } : node)),
      }),
      0,
    ],
    ['the step removed', (flow) => removeNode(flow, 'offer'), 0],
  ])('keeps the API’s problem with a step while it stands: %s', (_what, edit, kept) => {
    const shown = currentIssues(rejected, edit(sent));
    expect(shown.filter((issue) => issue.field === 'prompt').length).toBe(kept);
  });

  it('shows a problem the API and the check both found once', () => {
    const cut = removeNode(sent, 'offer');
    const unreachable = {
      loc: ['body', 'workflow_definition', 'nodes', 1],
      msg: 'Value error, node done cannot be reached from the start',
    };
    expect(currentIssues({ issues: issuesOf([unreachable], cut), sent: cut }, cut)).toHaveLength(1);
  });
});

describe('what changed between two definitions', () => {
  const changed = (edit: (flow: FlowDefinition) => FlowDefinition) =>
    definitionChanges(FLOW, edit(structuredClone(FLOW)));

  it.each<[string, (flow: FlowDefinition) => FlowDefinition, string[]]>([
    ['nothing', (flow) => flow, []],
    [
      'a moved node (not a change a call notices)',
      (flow) => ({ ...flow, nodes: flow.nodes.map((node) => ({ ...node, position: { x: 1, y: 2 } })) }),
      [],
    ],
    [
      'a prompt',
      (flow) => ({
        ...flow,
        nodes: flow.nodes.map((node) => (node.id === 'offer' ? { ...node, prompt: 'Offer a loan.' } : node)),
      }),
      ['Changed step “Offer”: prompt: “Offer a card.” → “Offer a loan.”'],
    ],
    [
      'the flow’s closing',
      (flow) => ({ ...flow, closing: 'Goodbye from North.' }),
      ["Changed the flow's closing: (none) → “Goodbye from North.”"],
    ],
    [
      'a renamed step, named as it was',
      (flow) => ({ ...flow, nodes: flow.nodes.map((node) => (node.id === 'done' ? { ...node, name: 'Bye' } : node)) }),
      ['Changed step “Goodbye”: name: “Goodbye” → “Bye”'],
    ],
    [
      'a variable and the interruption',
      (flow) => ({
        ...flow,
        nodes: flow.nodes.map((node) =>
          node.id === 'offer'
            ? { ...node, interruptible: false, extract: [{ name: 'product', type: 'string' as const }] }
            : node,
        ),
      }),
      ['Changed step “Offer”: interruptible: (none) → no', 'Changed step “Offer”: extract: (none) → product (string)'],
    ],
    [
      'a step and its transition added',
      (flow) => ({
        nodes: [...flow.nodes, { id: 'human', type: 'transferCall', name: 'Advisor' }],
        edges: [...flow.edges, { source: 'global', target: 'human', condition: 'The caller asks for a person' }],
      }),
      [
        'Added step “Advisor” (transferCall)',
        'Added transition “Everywhere” → “Advisor” when “The caller asks for a person”',
      ],
    ],
    [
      'a step removed with its transition',
      (flow) => ({
        nodes: flow.nodes.filter((node) => node.id !== 'minor'),
        edges: flow.edges.filter((edge) => edge.target !== 'minor'),
      }),
      ['Removed step “Minor”', 'Removed transition “Greeting” → “Minor”'],
    ],
    [
      'a transition’s test',
      (flow) => ({
        ...flow,
        edges: flow.edges.map((edge) => (edge.target === 'offer' ? { ...edge, expression: 'age >= 21' } : edge)),
      }),
      ['Changed transition “Greeting” → “Offer”: expression: “age >= 18” → “age >= 21”'],
    ],
  ])('says %s', (_what, edit, lines) => {
    expect(changed(edit)).toEqual(lines);
  });

  it('says a flat prompt became a flow, and compares flat definitions key by key', () => {
    expect(definitionChanges({ prompt: 'Hi' }, FLOW)).toEqual(['A flat prompt became a flow of 5 steps']);
    expect(definitionChanges(FLOW, { prompt: 'Hi' })).toEqual(['A flow of 5 steps became a flat prompt']);
    expect(definitionChanges({ prompt: 'Hi', steps: ['a'] }, { prompt: 'Hello' })).toEqual([
      'Changed prompt: “Hi” → “Hello”',
      'Changed steps: a → (none)',
    ]);
  });
});

describe("the start step's pre-call fetch in the panel", () => {
  it.each<[string, string | undefined, string, unknown]>([
    ['none when both fields are empty', undefined, '', undefined],
    ['none when the names are only separators', undefined, ' , ', undefined],
    [
      'the URL and the names, split on commas and spaces',
      'https://crm.example.com/{{initial_context.id}}',
      'balance, plan  tier,',
      { url: 'https://crm.example.com/{{initial_context.id}}', variables: ['balance', 'plan', 'tier'] },
    ],
    [
      'a URL without names yet, kept for the 422',
      'https://crm.example.com/x',
      '',
      { url: 'https://crm.example.com/x', variables: [] },
    ],
    ['names without a URL yet, kept for the 422', undefined, 'balance', { url: '', variables: ['balance'] }],
  ])('%s', (_what, url, names, expected) => {
    expect(preCallFetch(url, names)).toEqual(expected);
  });

  it('a complete one is a start step the API takes', () => {
    const start = { ...FLOW.nodes[0]!, pre_call_fetch: preCallFetch('https://crm.example.com/a', 'balance') };
    expect(FlowNode.safeParse(start).success).toBe(true);
    expect(
      FlowNode.safeParse({ ...start, pre_call_fetch: preCallFetch('https://crm.example.com/a', '') }).success,
    ).toBe(false);
  });
});
