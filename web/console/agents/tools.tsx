/** An agent's HTTP tools: the list, a new one from the form (parameters as a JSON schema), one removed. */
import { useQuery } from '@tanstack/preact-query';
import { useMutation } from '../lib/mutation.ts';
import { useState } from 'preact/hooks';
import { answer, type Schemas, useApi } from '../lib/api.ts';
import { ErrorLine, JsonField, onSubmitRun } from '../lib/ui.tsx';

/** What a new tool's parameters look like, as the form's starting point. */
const TOOL_PARAMETERS_EXAMPLE = {
  type: 'object',
  properties: { date: { type: 'string', description: 'The day asked about, YYYY-MM-DD' } },
  required: ['date'],
};

export function Tools({ agentId }: { agentId: string }) {
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
