/**
 * A test case as a form (no JSON): the simulated caller (persona, goal, behaviour, an exact script
 * one turn a line), the turn limit, the HTTP tools' mocks and the expectations, each a row of its
 * kind. `initial` fills it (a case drafted from a call); `existing` edits a stored case (PATCH, every
 * field of the form replacing the stored one); the API's 422 is shown as it says.
 */
import { useQuery } from '@tanstack/preact-query';
import { useMutation } from '../lib/mutation.ts';
import { useState } from 'preact/hooks';
import { answer, type Schemas, useApi } from '../lib/api.ts';
import { ErrorLine, onSubmitRun } from '../lib/ui.tsx';
import { ExpectationRow, newDraft, toDraft, toExpectation, type ExpectationDraft } from './expectation-fields.tsx';
import { newMockDraft, toMockDraft, toToolMock, ToolMockRow, type ToolMockDraft } from './tool-mock-fields.tsx';

export type CaseRequest = Schemas['CreateTestCaseRequest'];
type TestCase = Schemas['TestCase'];
type Behaviour = NonNullable<CaseRequest['caller']['behaviour']>[number];

const BEHAVIOURS: Behaviour[] = ['cooperative', 'hesitant', 'rushed', 'interrupts', 'off_topic', 'presses_keys'];

export function CaseForm({
  agentId,
  initial: drafted,
  existing,
  onSaved,
  onCancel,
}: {
  agentId: string;
  initial?: Partial<CaseRequest>;
  /** The stored case to edit: the form saves it in place. */
  existing?: TestCase;
  onSaved?: () => void;
  /** Shown as a Cancel button (editing). */
  onCancel?: () => void;
}) {
  const api = useApi();
  const initial: Partial<CaseRequest> | undefined = existing ?? drafted;
  const tools = useQuery({
    queryKey: ['tools', agentId],
    queryFn: () => answer(api.GET('/agents/{agent_id}/tools', { params: { path: { agent_id: agentId } } })),
  });
  const [name, setName] = useState(initial?.name ?? '');
  const [persona, setPersona] = useState(initial?.caller?.persona ?? '');
  const [goal, setGoal] = useState(initial?.caller?.goal ?? '');
  const [behaviour, setBehaviour] = useState<Behaviour[]>(initial?.caller?.behaviour ?? ['cooperative']);
  const [language, setLanguage] = useState(initial?.caller?.language ?? 'en');
  const [script, setScript] = useState((initial?.caller?.script ?? []).join('\n'));
  const [maxTurns, setMaxTurns] = useState(String(initial?.max_turns ?? 6));
  const [tags, setTags] = useState((initial?.tags ?? []).join(', '));
  const [expectations, setExpectations] = useState<ExpectationDraft[]>(
    initial?.expectations?.length ? initial.expectations.map(toDraft) : [newDraft()],
  );
  const [mode, setMode] = useState<NonNullable<CaseRequest['mode']>>(initial?.mode ?? 'text');
  const [mocks, setMocks] = useState<ToolMockDraft[]>((initial?.tool_mocks ?? []).map(toMockDraft));
  const [callRealTools, setCallRealTools] = useState(initial?.call_real_tools ?? false);
  const lines = script
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const body = (): CaseRequest => ({
    name,
    mode,
    caller: { persona, goal, language, behaviour, ...(lines.length ? { script: lines } : {}) },
    initial_context: initial?.initial_context ?? {},
    tool_mocks: mocks.map(toToolMock),
    call_real_tools: callRealTools,
    timeout_seconds: initial?.timeout_seconds ?? 120,
    max_turns: Number(maxTurns),
    tags: tags
      .split(',')
      .map((tag) => tag.trim())
      .filter(Boolean),
    expectations: expectations.map(toExpectation),
  });
  const save = useMutation({
    mutationFn: () =>
      existing
        ? answer(
            api.PATCH('/agents/{agent_id}/tests/{test_id}', {
              params: { path: { agent_id: agentId, test_id: existing.id } },
              // Every field of the form, each replacing the stored one whole (a caller without a script has none).
              body: body(),
            }),
          )
        : answer(api.POST('/agents/{agent_id}/tests', { params: { path: { agent_id: agentId } }, body: body() })),
    meta: { touches: ['agent-tests', agentId] },
    onSuccess: () => {
      if (!existing) setName('');
      onSaved?.();
    },
  });
  const change = (i: number, draft: ExpectationDraft) =>
    setExpectations(expectations.map((item, j) => (j === i ? draft : item)));
  return (
    <form onSubmit={onSubmitRun(() => save.mutate())} aria-labelledby="case-form-title">
      <h3 id="case-form-title">{existing ? `Edit test case: ${existing.name}` : 'New test case'}</h3>
      <label for="case-name">Name</label>
      <input id="case-name" required value={name} onInput={(e) => setName(e.currentTarget.value)} />
      <label for="case-mode">How it talks</label>
      <select id="case-mode" value={mode} onChange={(e) => setMode(e.currentTarget.value as typeof mode)}>
        <option value="text">Text (chat: fast)</option>
        <option value="voice">Voice (speech both ways: interruptions, keys, silence)</option>
      </select>
      <label for="case-persona">The caller: who they are</label>
      <textarea
        id="case-persona"
        required
        rows={2}
        value={persona}
        onInput={(e) => setPersona(e.currentTarget.value)}
      />
      <label for="case-goal">What they want</label>
      <input id="case-goal" required value={goal} onInput={(e) => setGoal(e.currentTarget.value)} />
      <label for="case-language">Their language (BCP 47)</label>
      <input id="case-language" required value={language} onInput={(e) => setLanguage(e.currentTarget.value)} />
      <fieldset>
        <legend>How they behave</legend>
        {BEHAVIOURS.map((item) => (
          <label class="inline" key={item}>
            <input
              type="checkbox"
              checked={behaviour.includes(item)}
              onChange={(e) =>
                setBehaviour(
                  e.currentTarget.checked ? [...behaviour, item] : behaviour.filter((other) => other !== item),
                )
              }
            />{' '}
            {item.replace('_', ' ')}
          </label>
        ))}
      </fieldset>
      <label for="case-script">Script: what they say, one turn a line (empty: the model plays them)</label>
      {mode === 'voice' && <p>A line may be [pressed 12#] (keys) or [silence].</p>}
      <textarea id="case-script" rows={4} value={script} onInput={(e) => setScript(e.currentTarget.value)} />
      <label for="case-max-turns">At most this many caller turns</label>
      <input
        id="case-max-turns"
        type="number"
        min={1}
        required
        value={maxTurns}
        onInput={(e) => setMaxTurns(e.currentTarget.value)}
      />
      <label for="case-tags">Tags (comma-separated)</label>
      <input id="case-tags" value={tags} onInput={(e) => setTags(e.currentTarget.value)} />
      <h4>Tool answers</h4>
      <p>During the test the agent's HTTP tools answer these instead of calling your systems.</p>
      {mocks.map((draft, i) => (
        <ToolMockRow
          key={i}
          n={i + 1}
          draft={draft}
          tools={tools.data?.items.map((tool) => tool.name) ?? []}
          onChange={(next) => setMocks(mocks.map((item, j) => (j === i ? next : item)))}
          onRemove={() => setMocks(mocks.filter((_, j) => j !== i))}
        />
      ))}
      <button type="button" class="secondary" onClick={() => setMocks([...mocks, newMockDraft()])}>
        Add a tool answer
      </button>
      <label class="inline">
        <input type="checkbox" checked={callRealTools} onChange={(e) => setCallRealTools(e.currentTarget.checked)} />{' '}
        Call the real tool when it has no answer here
      </label>
      <h4>Expectations</h4>
      {expectations.map((draft, i) => (
        <ExpectationRow
          key={i}
          n={i + 1}
          draft={draft}
          onChange={(next) => change(i, next)}
          onRemove={() => setExpectations(expectations.filter((_, j) => j !== i))}
        />
      ))}
      <button type="button" class="secondary" onClick={() => setExpectations([...expectations, newDraft()])}>
        Add an expectation
      </button>
      <ErrorLine error={save.error} />
      <button type="submit" disabled={save.isPending || !expectations.length}>
        {existing ? 'Save changes' : 'Save test case'}
      </button>
      {onCancel && (
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
      )}
    </form>
  );
}
