/** A new agent made blank (name, instructions, first message) or from a template and its variables. */
import { useQuery } from '@tanstack/preact-query';
import { useMutation } from '../lib/mutation.ts';
import { useState } from 'preact/hooks';
import { answer, useApi } from '../lib/api.ts';
import { navigate } from '../lib/route.ts';
import { ErrorLine, onSubmitRun } from '../lib/ui.tsx';

export function NewAgent() {
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

export function FromTemplate() {
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
