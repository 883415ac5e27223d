/**
 * Agents: the list (status filter, pages), a new agent (blank, from a template, or from a call
 * script whose analysis is shown for review first), and one agent's page: its definition and
 * settings, archive, a test call, its response latency over time, its knowledge base, HTTP tools
 * and memories.
 */
import { useMutation, useQuery } from '@tanstack/preact-query';
import { useState } from 'preact/hooks';
import { AgentLatency } from '../latency/agent-latency.tsx';
import { answer, answerWithPages, extractText, type Schemas, useApi } from '../lib/api.ts';
import { href, navigate } from '../lib/route.ts';
import { ErrorLine, JsonField, onSubmitRun, Pager, Table, when } from '../lib/ui.tsx';

type Agent = Schemas['Agent'];
type ScriptAnalysis = Schemas['ScriptAnalysis'];
const PAGE_SIZE = 20;

export function AgentsPage() {
  const api = useApi();
  const [status, setStatus] = useState('active');
  const [page, setPage] = useState(1);
  const agents = useQuery({
    queryKey: ['agents', status, page],
    queryFn: () => answerWithPages(api.GET('/agents', { params: { query: { status, page, limit: PAGE_SIZE } } })),
  });
  return (
    <section aria-labelledby="agents-title">
      <h2 id="agents-title">Agents</h2>
      <ErrorLine error={agents.error} />
      <label for="agent-status">Status</label>
      <select
        id="agent-status"
        value={status}
        onChange={(e) => {
          setStatus(e.currentTarget.value);
          setPage(1);
        }}
      >
        <option value="active">Active</option>
        <option value="archived">Archived</option>
        <option value="active,archived">All</option>
      </select>
      <Table label="Agents" columns={['Name', 'Status', 'Runs', 'Updated']}>
        {agents.data?.items.map((agent) => (
          <tr key={agent.public_id}>
            <td>
              <a href={href('agents', agent.public_id)}>{agent.name}</a>
            </td>
            <td>{agent.status}</td>
            <td>{agent.total_runs}</td>
            <td>{when(agent.updated_at)}</td>
          </tr>
        ))}
      </Table>
      <Pager page={page} totalPages={agents.data?.totalPages ?? 1} onPage={setPage} label="agents" />
      <NewAgent />
      <FromTemplate />
      <FromScript />
    </section>
  );
}

function NewAgent() {
  const api = useApi();
  const [name, setName] = useState('');
  const [prompt, setPrompt] = useState('');
  const [firstMessage, setFirstMessage] = useState('');
  const create = useMutation({
    mutationFn: () =>
      answer(
        api.POST('/agents', {
          body: {
            name,
            workflow_definition: { prompt },
            ...(firstMessage ? { workflow_configurations: { first_message: firstMessage } } : {}),
          },
        }),
      ),
    onSuccess: (agent) => navigate('agents', agent.public_id),
  });
  return (
    <form aria-labelledby="new-agent-title" onSubmit={onSubmitRun(() => create.mutate())}>
      <h3 id="new-agent-title">New agent</h3>
      <label for="new-agent-name">Name</label>
      <input
        id="new-agent-name"
        required
        maxLength={255}
        value={name}
        onInput={(e) => setName(e.currentTarget.value)}
      />
      <label for="new-agent-prompt">Instructions (prompt)</label>
      <textarea id="new-agent-prompt" rows={5} value={prompt} onInput={(e) => setPrompt(e.currentTarget.value)} />
      <label for="new-agent-first-message">First message</label>
      <input
        id="new-agent-first-message"
        value={firstMessage}
        onInput={(e) => setFirstMessage(e.currentTarget.value)}
      />
      <button type="submit" disabled={create.isPending}>
        Create agent
      </button>
      <ErrorLine error={create.error} />
    </form>
  );
}

function FromTemplate() {
  const api = useApi();
  const templates = useQuery({
    queryKey: ['agent-templates'],
    queryFn: () => answer(api.GET('/agent-templates', { params: { query: { limit: 100 } } })),
  });
  const [templateId, setTemplateId] = useState('');
  const [agentName, setAgentName] = useState('');
  const [variables, setVariables] = useState<Record<string, string>>({});
  const template = templates.data?.items.find((item) => item.id === templateId);
  const create = useMutation({
    mutationFn: () =>
      answer(
        api.POST('/agents/from-template', {
          body: {
            template_id: templateId,
            agent_name: agentName,
            language: template?.languages[0] ?? 'en',
            variables,
            generate_with_ai: false,
          },
        }),
      ),
    onSuccess: (agent) => navigate('agents', agent.public_id),
  });
  return (
    <form aria-labelledby="from-template-title" onSubmit={onSubmitRun(() => create.mutate())}>
      <h3 id="from-template-title">From a template</h3>
      <ErrorLine error={templates.error} />
      <label for="template">Template</label>
      <select id="template" required value={templateId} onChange={(e) => setTemplateId(e.currentTarget.value)}>
        <option value="">Choose a template</option>
        {templates.data?.items.map((item) => (
          <option value={item.id} key={item.id}>
            {item.name} ({item.industry})
          </option>
        ))}
      </select>
      {template && <p>{template.description}</p>}
      <label for="template-agent-name">Agent name</label>
      <input id="template-agent-name" required value={agentName} onInput={(e) => setAgentName(e.currentTarget.value)} />
      {template?.variables.map((variable) => (
        <div key={variable.name}>
          <label for={`variable-${variable.name}`}>{variable.description}</label>
          <input
            id={`variable-${variable.name}`}
            required={variable.required}
            value={variables[variable.name] ?? ''}
            onInput={(e) => setVariables({ ...variables, [variable.name]: e.currentTarget.value })}
          />
        </div>
      ))}
      <button type="submit" disabled={!template || create.isPending}>
        Create from template
      </button>
      <ErrorLine error={create.error} />
    </form>
  );
}

const valueOf = (item: { value: string } | null) => item?.value ?? '';

/** What the model read from a script, shown for review before the agent is made from it. */
function AnalysisReview({ analysis }: { analysis: ScriptAnalysis }) {
  const flow = analysis.call_flow;
  return (
    <div aria-label="Script analysis" role="region">
      <p>
        <strong>Greeting:</strong> {valueOf(flow.greeting)}
      </p>
      <p>
        <strong>Steps:</strong>
      </p>
      <ol>
        {flow.steps.map((step) => (
          <li key={step.value}>
            {step.value} <small>({step.source})</small>
          </li>
        ))}
      </ol>
      <p>
        <strong>Data to collect:</strong> {flow.data_to_collect.map((item) => item.value).join(', ')}
      </p>
      <p>
        <strong>Objections:</strong> {flow.objections.map((item) => `${item.objection} → ${item.answer}`).join('; ')}
      </p>
      {analysis.conflicts.length > 0 && (
        <p>
          <strong>Script and website differ on:</strong>{' '}
          {analysis.conflicts
            .map(
              (conflict) =>
                `${conflict.field} (script “${conflict.script_value}”, website “${conflict.website_value}”)`,
            )
            .join('; ')}
        </p>
      )}
    </div>
  );
}

function FromScript() {
  const api = useApi();
  const [companyName, setCompanyName] = useState('');
  const [language, setLanguage] = useState('en');
  const [scriptText, setScriptText] = useState('');
  const [url, setUrl] = useState('');
  const [agentName, setAgentName] = useState('');
  const readScript = useMutation({
    mutationFn: (file: File) => extractText(api, file, 'script'),
    onSuccess: setScriptText,
  });
  const analyze = useMutation({
    mutationFn: () =>
      answer(
        api.POST('/agent-templates/analyze-script', {
          body: { company_name: companyName, language, script_text: scriptText, ...(url ? { url } : {}) },
        }),
      ),
  });
  const create = useMutation({
    mutationFn: (analysis: ScriptAnalysis) =>
      answer(api.POST('/agents/from-script', { body: { agent_name: agentName, analysis, generate_with_ai: false } })),
    onSuccess: (agent) => navigate('agents', agent.public_id),
  });
  return (
    <form aria-labelledby="from-script-title" onSubmit={onSubmitRun(() => analyze.mutate())}>
      <h3 id="from-script-title">From a call script</h3>
      <label for="script-company">Company name</label>
      <input id="script-company" value={companyName} onInput={(e) => setCompanyName(e.currentTarget.value)} />
      <label for="script-language">Language</label>
      <input id="script-language" required value={language} onInput={(e) => setLanguage(e.currentTarget.value)} />
      <label for="script-file">Read the script from a file (PDF, DOCX, TXT or MD), or type it below</label>
      <input
        id="script-file"
        type="file"
        accept=".pdf,.docx,.txt,.md"
        onChange={(e) => {
          const file = e.currentTarget.files?.[0];
          if (file) readScript.mutate(file);
        }}
      />
      <ErrorLine error={readScript.error} />
      <label for="script-text">Script</label>
      <textarea
        id="script-text"
        rows={6}
        required
        value={scriptText}
        onInput={(e) => setScriptText(e.currentTarget.value)}
      />
      <label for="script-url">Website (optional)</label>
      <input id="script-url" type="url" value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
      <button type="submit" disabled={analyze.isPending}>
        Analyze the script
      </button>
      <ErrorLine error={analyze.error} />
      {analyze.data && (
        <>
          <AnalysisReview analysis={analyze.data} />
          <label for="script-agent-name">Agent name</label>
          <input id="script-agent-name" value={agentName} onInput={(e) => setAgentName(e.currentTarget.value)} />
          <button
            type="button"
            disabled={!agentName || create.isPending}
            onClick={() => analyze.data && create.mutate(analyze.data)}
          >
            Create agent from this analysis
          </button>
          <ErrorLine error={create.error} />
        </>
      )}
    </form>
  );
}

export function AgentPage({ agentId }: { agentId: string }) {
  const api = useApi();
  const agent = useQuery({
    queryKey: ['agent', agentId],
    queryFn: () => answer(api.GET('/agents/{agent_id}', { params: { path: { agent_id: agentId } } })),
  });
  if (!agent.data) return <ErrorLine error={agent.error ?? new Error('Loading…')} />;
  return (
    <section aria-labelledby="agent-title">
      <p>
        <a href={href('agents')}>All agents</a>
      </p>
      <h2 id="agent-title">{agent.data.name}</h2>
      <p>
        <code>{agent.data.public_id}</code> · {agent.data.status} · {agent.data.total_runs} runs ·{' '}
        <a href={href('calls', agent.data.public_id)}>Its calls</a> ·{' '}
        <a href={href('agents', agent.data.public_id, 'flow')}>Conversation flow and versions</a> ·{' '}
        <a href={`talk.html?agent=${encodeURIComponent(agent.data.public_id)}`}>Talk to it</a>
      </p>
      <TestCall agent={agent.data} />
      <AgentLatency agentId={agent.data.id} />
      <AgentSettings key={agent.data.public_id} agent={agent.data} />
      <Knowledge agentId={agentId} />
      <Tools agentId={agentId} />
      <Memories agentId={agentId} />
    </section>
  );
}

function TestCall({ agent }: { agent: Agent }) {
  const api = useApi();
  const [phoneNumber, setPhoneNumber] = useState('');
  const call = useMutation({
    mutationFn: () =>
      answer(
        api.POST('/agents/{agent_id}/calls', {
          params: { path: { agent_id: agent.public_id } },
          body: { phone_number: phoneNumber },
        }),
      ),
    onSuccess: (placed) => navigate('calls', agent.public_id, placed.workflow_run_id),
  });
  return (
    <form aria-labelledby="test-call-title" onSubmit={onSubmitRun(() => call.mutate())}>
      <h3 id="test-call-title">Place a test call</h3>
      <label for="test-call-number">Phone number (E.164)</label>
      <input
        id="test-call-number"
        type="tel"
        required
        placeholder="+48601234567"
        value={phoneNumber}
        onInput={(e) => setPhoneNumber(e.currentTarget.value)}
      />
      <button type="submit" disabled={call.isPending || agent.status !== 'active'}>
        Call
      </button>
      <ErrorLine error={call.error} />
    </form>
  );
}

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

function AgentSettings({ agent }: { agent: Agent }) {
  const api = useApi();
  // A flow's step prompts are in its nodes; the flat definition's instructions are its `prompt`.
  const { prompt, ...definitionRest } = agent.workflow_definition as Record<string, unknown>;
  const [name, setName] = useState(agent.name);
  const [instructions, setInstructions] = useState(typeof prompt === 'string' ? prompt : '');
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
            workflow_definition: { ...definition, prompt: instructions },
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
      <ErrorLine error={save.error ?? archive.error} />
    </form>
  );
}

function Knowledge({ agentId }: { agentId: string }) {
  const api = useApi();
  const path = { agent_id: agentId };
  const documents = useQuery({
    queryKey: ['knowledge', agentId],
    queryFn: () => answer(api.GET('/agents/{agent_id}/knowledge-base/documents', { params: { path } })),
  });
  const [title, setTitle] = useState('');
  const [content, setContent] = useState('');
  const add = useMutation({
    mutationFn: () =>
      answer(api.POST('/agents/{agent_id}/knowledge-base/documents', { params: { path }, body: { title, content } })),
    meta: { touches: ['knowledge', agentId] },
    onSuccess: () => {
      setTitle('');
      setContent('');
    },
  });
  const readDocument = useMutation({
    mutationFn: async (file: File) => ({
      title: file.name.replace(/\.[^.]+$/, ''),
      text: await extractText(api, file, 'knowledge'),
    }),
    onSuccess: (read) => {
      setTitle((current) => current || read.title);
      setContent(read.text);
    },
  });
  const remove = useMutation({
    mutationFn: (documentId: string) =>
      answer(
        api.DELETE('/agents/{agent_id}/knowledge-base/documents/{document_id}', {
          params: { path: { ...path, document_id: documentId } },
        }),
      ),
    meta: { touches: ['knowledge', agentId] },
  });
  return (
    <section aria-labelledby="knowledge-title">
      <h3 id="knowledge-title">Knowledge base</h3>
      <ErrorLine error={documents.error ?? add.error ?? remove.error ?? readDocument.error} />
      <ul aria-label="Knowledge documents">
        {documents.data?.items.map((document) => (
          <li key={document.id}>
            {document.title} ({document.characters} characters, {document.chunks} chunks){' '}
            <button type="button" class="secondary" onClick={() => remove.mutate(document.id)}>
              Remove {document.title}
            </button>
          </li>
        ))}
      </ul>
      <form onSubmit={onSubmitRun(() => add.mutate())}>
        <label for="knowledge-title-input">Document title</label>
        <input id="knowledge-title-input" required value={title} onInput={(e) => setTitle(e.currentTarget.value)} />
        <label for="knowledge-file">Text from a file (PDF, DOCX, TXT or MD), or typed below</label>
        <input
          id="knowledge-file"
          type="file"
          accept=".pdf,.docx,.txt,.md"
          onChange={(e) => {
            const file = e.currentTarget.files?.[0];
            if (file) readDocument.mutate(file);
          }}
        />
        <label for="knowledge-content">Text</label>
        <textarea
          id="knowledge-content"
          required
          rows={4}
          value={content}
          onInput={(e) => setContent(e.currentTarget.value)}
        />
        <button type="submit" disabled={add.isPending}>
          Add document
        </button>
      </form>
    </section>
  );
}

/** What a new tool's parameters look like, as the form's starting point. */
const TOOL_PARAMETERS_EXAMPLE = {
  type: 'object',
  properties: { date: { type: 'string', description: 'The day asked about, YYYY-MM-DD' } },
  required: ['date'],
};

function Tools({ agentId }: { agentId: string }) {
  const api = useApi();
  const path = { agent_id: agentId };
  const tools = useQuery({
    queryKey: ['tools', agentId],
    queryFn: () => answer(api.GET('/agents/{agent_id}/tools', { params: { path } })),
  });
  const [toolName, setToolName] = useState('');
  const [description, setDescription] = useState('');
  const [method, setMethod] = useState<Schemas['CreateToolRequest']['method']>('GET');
  const [url, setUrl] = useState('');
  const [headers, setHeaders] = useState<Record<string, unknown> | null>({});
  const [parameters, setParameters] = useState<Record<string, unknown> | null>(TOOL_PARAMETERS_EXAMPLE);
  const add = useMutation({
    mutationFn: () =>
      answer(
        api.POST('/agents/{agent_id}/tools', {
          params: { path },
          body: {
            name: toolName,
            description,
            method,
            url,
            headers: headers as Record<string, string>,
            parameters: parameters as Schemas['CreateToolRequest']['parameters'],
          },
        }),
      ),
    meta: { touches: ['tools', agentId] },
    onSuccess: () => setToolName(''),
  });
  const remove = useMutation({
    mutationFn: (toolId: string) =>
      answer(api.DELETE('/agents/{agent_id}/tools/{tool_id}', { params: { path: { ...path, tool_id: toolId } } })),
    meta: { touches: ['tools', agentId] },
  });
  return (
    <section aria-labelledby="tools-title">
      <h3 id="tools-title">HTTP tools</h3>
      <ErrorLine error={tools.error ?? add.error ?? remove.error} />
      <ul aria-label="Tools">
        {tools.data?.items.map((item) => (
          <li key={item.id}>
            <code>{item.name}</code>: {item.method} {item.url} — {item.description}{' '}
            <button type="button" class="secondary" onClick={() => remove.mutate(item.id)}>
              Remove {item.name}
            </button>
          </li>
        ))}
      </ul>
      <form onSubmit={onSubmitRun(() => add.mutate())}>
        <h4>New tool</h4>
        <label for="tool-name">Name (what the model calls it: letters, digits, _ and -)</label>
        <input id="tool-name" required value={toolName} onInput={(e) => setToolName(e.currentTarget.value)} />
        <label for="tool-description">When the model should use it</label>
        <input
          id="tool-description"
          required
          value={description}
          onInput={(e) => setDescription(e.currentTarget.value)}
        />
        <label for="tool-method">Method</label>
        <select
          id="tool-method"
          value={method}
          onChange={(e) => setMethod(e.currentTarget.value as Schemas['CreateToolRequest']['method'])}
        >
          {['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].map((name) => (
            <option key={name}>{name}</option>
          ))}
        </select>
        <label for="tool-url">URL (https)</label>
        <input id="tool-url" type="url" required value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
        <JsonField id="tool-headers" label="Headers sent with it" value={{}} onValid={setHeaders} />
        <JsonField
          id="tool-parameters"
          label="Parameters the model fills in (a JSON schema object)"
          value={TOOL_PARAMETERS_EXAMPLE}
          onValid={setParameters}
        />
        <button type="submit" disabled={!headers || !parameters || add.isPending}>
          Add tool
        </button>
      </form>
    </section>
  );
}

function Memories({ agentId }: { agentId: string }) {
  const api = useApi();
  const path = { agent_id: agentId };
  const memories = useQuery({
    queryKey: ['memories', agentId],
    queryFn: () => answer(api.GET('/agents/{agent_id}/memories', { params: { path } })),
  });
  const remove = useMutation({
    mutationFn: (memoryId: string) =>
      answer(
        api.DELETE('/agents/{agent_id}/memories/{memory_id}', { params: { path: { ...path, memory_id: memoryId } } }),
      ),
    meta: { touches: ['memories', agentId] },
  });
  return (
    <section aria-labelledby="memories-title">
      <h3 id="memories-title">Memories</h3>
      <ErrorLine error={memories.error ?? remove.error} />
      <ul aria-label="Memories">
        {memories.data?.items.map((memory) => (
          <li key={memory.id}>
            <strong>{memory.topic}</strong>: {memory.content} {memory.due_at ? `(due ${when(memory.due_at)})` : ''}
            {memory.done ? ' — done' : ''}{' '}
            <button type="button" class="secondary" onClick={() => remove.mutate(memory.id)}>
              Forget {memory.topic}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
