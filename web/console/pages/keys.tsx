/** API keys of the organization: list, a new one shown once, two-step revocation. */
import { useQuery } from '@tanstack/preact-query';
import { useMutation } from '../lib/mutation.ts';
import { useState } from 'preact/hooks';
import { answer, type Schemas, useApi } from '../lib/api.ts';
import { ErrorLine, onSubmitRun, Table, when } from '../lib/ui.tsx';

type ApiKey = Schemas['ApiKey'];

/**
 * The keys as listed, with what this page changed itself: the API lists keys from an index that
 * may lag a moment behind a creation or a revocation, so those stay shown as they were answered.
 */
function withChanges(listed: ApiKey[], changed: Map<string, ApiKey>): ApiKey[] {
  const merged = listed.map((key) => {
    const mine = changed.get(key.id);
    return mine && !key.revoked_at ? mine : key;
  });
  return [...merged, ...[...changed.values()].filter((key) => !listed.some((listedKey) => listedKey.id === key.id))];
}

export function KeysPage() {
  const api = useApi();
  const keys = useQuery({
    queryKey: ['api-keys'],
    queryFn: () => answer(api.GET('/api-keys', { params: { query: { limit: 100 } } })),
  });
  const [name, setName] = useState('');
  const [confirming, setConfirming] = useState('');
  const [changed, setChanged] = useState(new Map<string, ApiKey>());
  const note = (key: ApiKey) => setChanged((previous) => new Map(previous).set(key.id, key));
  const create = useMutation({
    mutationFn: () => answer(api.POST('/api-keys', { body: { name } })),
    onSuccess: ({ key: _secret, ...created }) => {
      note(created);
      setName('');
    },
  });
  const revoke = useMutation({
    mutationFn: async (key: ApiKey) => {
      await answer(api.DELETE('/api-keys/{key_id}', { params: { path: { key_id: key.id } } }));
      return key;
    },
    onSuccess: (key) => {
      note({ ...key, revoked_at: new Date().toISOString() });
      setConfirming('');
    },
  });
  return (
    <section aria-labelledby="keys-title">
      <h2 id="keys-title">API keys</h2>
      <ErrorLine error={keys.error ?? create.error ?? revoke.error} />
      <form onSubmit={onSubmitRun(() => create.mutate())}>
        <label for="key-name">Name of a new key</label>
        <input id="key-name" required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        <button type="submit" disabled={create.isPending}>
          Create key
        </button>
      </form>
      {create.data && (
        <p role="status">
          New key “{create.data.name}”: <code aria-label="New API key">{create.data.key}</code> — copy it now: it is not
          shown again.
        </p>
      )}
      <Table label="API keys of the organization" columns={['Name', 'Key', 'Created', 'Revoked', '']}>
        {withChanges(keys.data?.items ?? [], changed).map((key) => (
          <tr key={key.id}>
            <td>{key.name}</td>
            <td>
              <code>{key.key_prefix}</code>
            </td>
            <td>{when(key.created_at)}</td>
            <td>{when(key.revoked_at)}</td>
            <td>
              {!key.revoked_at &&
                (confirming === key.id ? (
                  <button type="button" onClick={() => revoke.mutate(key)}>
                    Confirm: revoke {key.name}
                  </button>
                ) : (
                  <button type="button" class="secondary" onClick={() => setConfirming(key.id)}>
                    Revoke {key.name}
                  </button>
                ))}
            </td>
          </tr>
        ))}
      </Table>
    </section>
  );
}
