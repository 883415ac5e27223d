/**
 * A test case as a form (no JSON): the simulated caller (persona, goal, behaviour, an exact script
 * one turn a line), the turn limit and the expectations, each a row of its kind. `initial` fills it
 * (a case drafted from a call); the API's 422 is shown as it says.
 */
import { useMutation } from '@tanstack/preact-query';
import { useState } from 'preact/hooks';
import { answer, type Schemas, useApi } from '../lib/api.ts';
import { ErrorLine, onSubmitRun } from '../lib/ui.tsx';
import { ExpectationRow, newDraft, toDraft, toExpectation, type ExpectationDraft } from './expectation-fields.tsx';

export type CaseRequest = Schemas['CreateTestCaseRequest'];
type Behaviour = NonNullable<CaseRequest['caller']['behaviour']>[number];

const BEHAVIOURS: Behaviour[] = ['cooperative', 'hesitant', 'rushed', 'interrupts', 'off_topic', 'presses_keys'];

export function CaseForm({
  agentId,
  initial,
  onSaved,
}: {
  agentId: string;
  initial?: Partial<CaseRequest>;
  onSaved?: () => void;
}) {
  const api = useApi();
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
  const lines = script
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const save = useMutation({
    mutationFn: () =>
      answer(
        api.POST('/agents/{agent_id}/tests', {
          params: { path: { agent_id: agentId } },
          body: {
            name,
            caller: { persona, goal, language, behaviour, ...(lines.length ? { script: lines } : {}) },
            initial_context: initial?.initial_context ?? {},
            tool_mocks: initial?.tool_mocks ?? [],
            call_real_tools: false,
            timeout_seconds: initial?.timeout_seconds ?? 120,
            max_turns: Number(maxTurns),
            tags: tags
              .split(',')
              .map((tag) => tag.trim())
              .filter(Boolean),
            expectations: expectations.map(toExpectation),
          },
        }),
      ),
    meta: { touches: ['agent-tests', agentId] },
    onSuccess: () => {
      setName('');
      onSaved?.();
    },
  });
  const change = (i: number, draft: ExpectationDraft) =>
    setExpectations(expectations.map((item, j) => (j === i ? draft : item)));
  return (
    <form onSubmit={onSubmitRun(() => save.mutate())} aria-labelledby="case-form-title">
      <h3 id="case-form-title">New test case</h3>
      <label for="case-name">Name</label>
      <input id="case-name" required value={name} onInput={(e) => setName(e.currentTarget.value)} />
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
          <label key={item}>
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
        Save test case
      </button>
    </form>
  );
}
