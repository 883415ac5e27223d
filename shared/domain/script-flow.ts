/**
 * A call script that branches, as a conversation flow (docs/flows.md): what `POST
 * /agents/from-script` makes of an analysis whose call flow has `branches`. The script's steps
 * become a chain of steps, each asked in its turn; a question that branches offers the model one
 * transition per answer (the answer quoted in its condition) and one for any other answer, which
 * goes on with the steps; a branch asks its own steps, then ends the call with its closing words
 * or goes on with the steps after its question. The greeting and the mandatory phrases are said
 * first, in a start step the caller cannot interrupt; objections and their answers are the global
 * instructions; each datum to collect is extracted in the step that asks for it. Pure.
 */
import type { FlowDefinition, FlowEdge, FlowNode, FlowVariable } from './flows.ts';

/** The parts of a script analysis's call flow a flow is made from (schemas/agent-authoring.ts ScriptAnalysis). */
export interface ScriptCallFlow {
  greeting: string | null;
  steps: string[];
  objections: { objection: string; answer: string }[];
  mandatory_phrases: string[];
  data_to_collect: string[];
  branches: { question: string; answer: string; steps: string[]; closing: string | null }[];
}

/** A branch whose question is not one of the steps: where it is in the analysis's `branches`. */
export interface ScriptFlowIssue {
  branch: number;
  message: string;
}

const sameText = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/** The branches whose question is none of the steps (the flow cannot place them). */
export function misplacedBranches(callFlow: Pick<ScriptCallFlow, 'steps' | 'branches'>): ScriptFlowIssue[] {
  return callFlow.branches.flatMap((branch, index) =>
    callFlow.steps.some((step) => sameText(step, branch.question))
      ? []
      : [{ branch: index, message: 'the question is not one of the steps' }],
  );
}

/** A datum's name as a flow variable (`date of birth` → `date_of_birth`), or null when none can be made. */
export function variableName(datum: string): string | null {
  const name = datum
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/ł/g, 'l')
    .replace(/Ł/g, 'L')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 64);
  return /^[a-z][a-z0-9_]*$/.test(name) && name !== 'call_disposition' ? name : null;
}

/** A step's name: its place, then its words (node names are unique and at most 100 characters). */
const stepName = (place: string, text: string) => `${place} ${text}`.replace(/\s+/g, ' ').trim().slice(0, 100);

/** What the agent says in a step: the fake model and the real one both read `Say "…"`. */
const sayPrompt = (text: string) => `Say "${text.trim()}" and wait for the answer.`;

/**
 * The flow of a script that branches; null when it does not (the flat definition stays). The
 * branches must be placed (misplacedBranches empty).
 */
export function scriptFlow(callFlow: ScriptCallFlow, companyName: string): FlowDefinition | null {
  if (!callFlow.branches.length) return null;
  const nodes: FlowNode[] = [];
  const edges: FlowEdge[] = [];
  const { steps } = callFlow;

  const greeting = [callFlow.greeting?.trim() || `Hello, this is ${companyName}.`, ...callFlow.mandatory_phrases]
    .map((part) => part.trim())
    .filter(Boolean)
    .join(' ');
  nodes.push({
    id: 'start',
    type: 'startCall',
    name: 'Greeting',
    greeting,
    prompt: 'Greet the caller and listen.',
    ...(callFlow.mandatory_phrases.length ? { interruptible: false } : {}),
  });
  if (callFlow.objections.length)
    nodes.push({
      id: 'global',
      type: 'globalNode',
      name: 'Objections',
      prompt: [
        'When the caller objects, answer as the script does:',
        ...callFlow.objections.map(({ objection, answer }) => `- ${objection}: ${answer}`),
      ].join('\n'),
    });

  const mainId = (index: number) => (index < steps.length ? `step_${index + 1}` : 'end');
  steps.forEach((text, index) =>
    nodes.push({
      id: mainId(index),
      type: 'agentNode',
      name: stepName(`${index + 1}.`, text),
      prompt: sayPrompt(text),
    }),
  );
  edges.push({ source: 'start', target: mainId(0) });

  steps.forEach((text, index) => {
    const source = mainId(index);
    const next = mainId(index + 1);
    const branches = callFlow.branches
      .map((branch, number) => ({ ...branch, number: number + 1 }))
      .filter((branch) => sameText(branch.question, text));
    if (!branches.length) {
      edges.push({ source, target: next });
      return;
    }
    for (const branch of branches) {
      const label = branch.answer.trim().slice(0, 60);
      const chain = branch.steps.map((stepText, position) => ({
        id: `branch_${branch.number}_${position + 1}`,
        text: stepText,
        place: `Branch ${branch.number}.${position + 1}`,
      }));
      for (const step of chain)
        nodes.push({
          id: step.id,
          type: 'agentNode',
          name: stepName(`${step.place} (${label})`, step.text),
          prompt: sayPrompt(step.text),
        });
      const end = branch.closing?.trim()
        ? { id: `end_${branch.number}`, closing: branch.closing.trim().slice(0, 2000) }
        : null;
      if (end)
        nodes.push({
          id: end.id,
          type: 'endCall',
          name: stepName(`End of branch ${branch.number}`, `(${label})`),
          closing: end.closing,
        });
      const targets = [...chain.map((step) => step.id), end?.id ?? next];
      edges.push({
        source,
        target: targets[0]!,
        condition: `The caller answers "${branch.answer.trim()}"`,
        label: label.slice(0, 100),
      });
      for (let position = 1; position < targets.length; position += 1)
        edges.push({ source: targets[position - 1]!, target: targets[position]! });
    }
    edges.push({
      source,
      target: next,
      condition: 'The caller answered, and none of the other answers fits',
      label: 'Other answer',
    });
  });
  nodes.push({ id: 'end', type: 'endCall', name: 'Goodbye' });
  assignData(nodes, callFlow.data_to_collect);
  return { nodes, edges };
}

/**
 * Each datum to collect is extracted in the first step whose words name it; one no step names, in
 * the first step (whose edges then wait for it, so the model asks).
 */
function assignData(nodes: FlowNode[], data: string[]): void {
  const steps = nodes.filter((node) => node.type === 'agentNode');
  const used = new Set<string>();
  for (const datum of data) {
    const name = variableName(datum);
    if (!name || used.has(name)) continue;
    used.add(name);
    const word = datum.trim().toLowerCase();
    const step = steps.find((node) => node.prompt.toLowerCase().includes(word)) ?? steps[0];
    if (!step) continue;
    const variable: FlowVariable = { name, type: 'string', hint: `The caller's ${datum.trim()}` };
    step.extract = [...(step.extract ?? []), variable];
  }
}
