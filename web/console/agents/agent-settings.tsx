/**
 * An agent's definition and settings: name, instructions, the knowledge box, the conversation plan,
 * the settings with a field of their own over the JSON of the others, variables, disposition codes,
 * voicemail; save, archive and unarchive.
 */
import { useMutation } from '../lib/mutation.ts';
import { useState } from 'preact/hooks';
import { answer, extractText, type Schemas, useApi } from '../lib/api.ts';
import { ErrorLine, JsonField, onSubmitRun } from '../lib/ui.tsx';

type Agent = Schemas['Agent'];

/** The call settings with a field of their own; the rest of `workflow_configurations` is edited as JSON. */
const SETTING_FIELDS = [
  { key: 'first_message', label: 'First message', type: 'text' },
  { key: 'language', label: 'Language (BCP 47, e.g. en, pl, de-DE)', type: 'text' },
  { key: 'voice', label: 'Voice (ElevenLabs voice id or OpenAI voice name; empty: the platform voice)', type: 'text' },
  { key: 'model', label: 'Model (empty: the platform model)', type: 'text' },
  { key: 'temperature', label: 'Temperature (0 to 2)', type: 'number' },
  { key: 'max_call_seconds', label: 'Longest call (seconds)', type: 'number' },
] as const;
type SettingKey = (typeof SETTING_FIELDS)[number]['key'];

/** The settings typed in, over the JSON of the others; an empty field leaves that setting at its default. */
function mergedSettings(rest: Record<string, unknown>, fields: Record<SettingKey, string>) {
  const typed = SETTING_FIELDS.filter(({ key }) => fields[key].trim() !== '').map(({ key, type }) => [
    key,
    type === 'number' ? Number(fields[key]) : fields[key],
  ]);
  return { ...rest, ...Object.fromEntries(typed) } as Schemas['WorkflowConfigurations'];
}

export function AgentSettings({ agent }: { agent: Agent }) {
  const api = useApi();
  // A flow's step prompts are in its nodes; the flat definition's instructions are its `prompt`.
  // The knowledge box (`knowledge`, inlined into every call's instructions) has its own field too.
  const {
    prompt,
    knowledge: storedKnowledge,
    ...definitionRest
  } = agent.workflow_definition as Record<string, unknown>;
  const [name, setName] = useState(agent.name);
  const [instructions, setInstructions] = useState(typeof prompt === 'string' ? prompt : '');
  const [knowledge, setKnowledge] = useState(typeof storedKnowledge === 'string' ? storedKnowledge : '');
  const [voicemail, setVoicemail] = useState(agent.voicemail_message ?? '');
  const [definition, setDefinition] = useState<Record<string, unknown> | null>(definitionRest);
  const configured = agent.workflow_configurations as Record<string, unknown>;
  const otherSettings = Object.fromEntries(
    Object.entries(configured).filter(([key]) => !SETTING_FIELDS.some((field) => field.key === key)),
  );
  const [settings, setSettings] = useState(
    Object.fromEntries(SETTING_FIELDS.map(({ key }) => [key, String(configured[key] ?? '')])) as Record<
      SettingKey,
      string
    >,
  );
  const [configurations, setConfigurations] = useState<Record<string, unknown> | null>(otherSettings);
  const [variables, setVariables] = useState<Record<string, unknown> | null>(agent.template_context_variables);
  const [dispositions, setDispositions] = useState<Record<string, unknown> | null>(agent.call_disposition_codes);
  const path = { agent_id: agent.public_id };
  const save = useMutation({
    mutationFn: () =>
      answer(
        api.PATCH('/agents/{agent_id}', {
          params: { path },
          body: {
            name,
            voicemail_message: voicemail || null,
            workflow_definition: { ...definition, prompt: instructions, ...(knowledge ? { knowledge } : {}) },
            workflow_configurations: mergedSettings(configurations ?? {}, settings),
            template_context_variables: variables ?? {},
            call_disposition_codes: dispositions ?? {},
          },
        }),
      ),
    meta: { touches: ['agent', agent.public_id] },
  });
  const archive = useMutation({
    mutationFn: () =>
      answer(
        agent.status === 'active'
          ? api.POST('/agents/{agent_id}/archive', { params: { path } })
          : api.POST('/agents/{agent_id}/unarchive', { params: { path } }),
      ),
    meta: { touches: ['agent', agent.public_id] },
  });
  // A file's text (extract-text, purpose knowledge) fills the box, to be read and trimmed before saving.
  const readKnowledge = useMutation({
    mutationFn: (file: File) => extractText(api, file, 'knowledge'),
    onSuccess: setKnowledge,
  });
  const invalid = !definition || !configurations || !variables || !dispositions;
  return (
    <form aria-labelledby="settings-title" onSubmit={onSubmitRun(() => save.mutate())}>
      <h3 id="settings-title">Definition and settings</h3>
      <label for="agent-name">Name</label>
      <input id="agent-name" required maxLength={255} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      <label for="agent-prompt">Instructions (prompt)</label>
      <textarea
        id="agent-prompt"
        rows={8}
        value={instructions}
        onInput={(e) => setInstructions(e.currentTarget.value)}
      />
      <label for="agent-knowledge">
        Knowledge box: what the agent always knows, in every call's instructions (at most 20,000 characters)
      </label>
      <textarea
        id="agent-knowledge"
        rows={6}
        value={knowledge}
        aria-describedby="agent-knowledge-count"
        onInput={(e) => setKnowledge(e.currentTarget.value)}
      />
      <p id="agent-knowledge-count" class="muted">
        {knowledge.length.toLocaleString('en')} characters
      </p>
      <label for="agent-knowledge-file">Fill the knowledge box from a file (PDF, DOCX, TXT or MD)</label>
      <input
        id="agent-knowledge-file"
        type="file"
        accept=".pdf,.docx,.txt,.md"
        onChange={(e) => {
          const file = e.currentTarget.files?.[0];
          if (file) readKnowledge.mutate(file);
        }}
      />
      <JsonField
        id="agent-definition"
        label="Conversation plan: greeting, steps, closing, objections, data to collect"
        value={definitionRest}
        onValid={setDefinition}
      />
      {SETTING_FIELDS.map(({ key, label, type }) => (
        <div key={key}>
          <label for={`agent-${key}`}>{label}</label>
          <input
            id={`agent-${key}`}
            type={type}
            step={type === 'number' ? 'any' : undefined}
            value={settings[key]}
            onInput={(e) => setSettings({ ...settings, [key]: e.currentTarget.value })}
          />
        </div>
      ))}
      <JsonField
        id="agent-configurations"
        label="Other settings: transfer, post-call analysis, keypad, phrases, barge-in, silences"
        value={otherSettings}
        onValid={setConfigurations}
      />
      <JsonField
        id="agent-variables"
        label="Default variables"
        value={agent.template_context_variables}
        onValid={setVariables}
      />
      <JsonField
        id="agent-dispositions"
        label="Disposition codes"
        value={agent.call_disposition_codes}
        onValid={setDispositions}
      />
      <label for="agent-voicemail">Voicemail message (empty: hang up on a machine)</label>
      <input id="agent-voicemail" value={voicemail} onInput={(e) => setVoicemail(e.currentTarget.value)} />
      <div class="actions">
        <button type="submit" disabled={invalid || save.isPending}>
          Save
        </button>
        <button type="button" class="secondary" onClick={() => archive.mutate()} disabled={archive.isPending}>
          {agent.status === 'active' ? 'Archive' : 'Unarchive'}
        </button>
      </div>
      <p role="status">{save.isSuccess ? 'Saved.' : ''}</p>
      <ErrorLine error={save.error ?? archive.error ?? readKnowledge.error} />
    </form>
  );
}
