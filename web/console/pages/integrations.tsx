/**
 * Integrations: connect a Google Sheets account (the provider's consent with PKCE, started here and
 * completed when the provider sends the browser back), see the connected accounts, disconnect one,
 * and pick a spreadsheet with the provider's file picker to start a campaign from it.
 */
import { useQuery } from '@tanstack/preact-query';
import { useMutation } from '../lib/mutation.ts';
import { useEffect, useState } from 'preact/hooks';
import { answer, type Schemas, useApi } from '../lib/api.ts';
import { retryConfigOf } from '../lib/retry-config.ts';
import { navigate } from '../lib/route.ts';
import {
  consentRedirectUri,
  keepConsent,
  leaveConsentAnswer,
  type PickedSheet,
  pickSpreadsheet,
  pkcePair,
  takeConsentAnswer,
} from '../lib/sheet-picker.ts';
import { ErrorLine, onSubmitRun, Table, when } from '../lib/ui.tsx';

type Connection = Schemas['Connection'];

export function IntegrationsPage() {
  const api = useApi();
  const connections = useQuery({
    queryKey: ['integrations'],
    queryFn: () => answer(api.GET('/integrations', { params: { query: { limit: 100 } } })),
  });
  const connect = useMutation({
    mutationFn: async () => {
      const { verifier, challenge } = await pkcePair();
      const redirectUri = consentRedirectUri();
      const started = await answer(
        api.POST('/integrations/consents', {
          body: {
            provider: 'google-sheets',
            redirect_uri: redirectUri,
            code_challenge: challenge,
            code_challenge_method: 'S256',
          },
        }),
      );
      keepConsent({ state: started.state, verifier, redirectUri });
      location.assign(started.authorization_url);
    },
  });
  const complete = useMutation({
    meta: { touches: ['integrations'] },
    mutationFn: async () => {
      const returned = takeConsentAnswer();
      leaveConsentAnswer();
      if (returned.kind === 'none') return null;
      if (returned.kind === 'refused') throw new Error(returned.reason);
      return answer(
        api.POST('/integrations', {
          body: {
            provider: 'google-sheets',
            authorization_code: returned.code,
            redirect_uri: returned.consent.redirectUri,
            state: returned.consent.state,
            code_verifier: returned.consent.verifier,
          },
        }),
      );
    },
  });
  useEffect(() => {
    if (new URLSearchParams(location.search).has('state')) complete.mutate();
  }, []);
  const disconnect = useMutation({
    meta: { touches: ['integrations'] },
    mutationFn: (connection: Connection) =>
      answer(api.DELETE('/integrations/{connection_id}', { params: { path: { connection_id: connection.id } } })),
  });
  const [picked, setPicked] = useState<{ connection: Connection; sheet: PickedSheet } | null>(null);
  const pick = useMutation({
    mutationFn: async (connection: Connection) => {
      const token = await answer(
        api.POST('/integrations/{connection_id}/sheets/picker-token', {
          params: { path: { connection_id: connection.id } },
        }),
      );
      const sheet = await pickSpreadsheet(token);
      if (sheet) setPicked({ connection, sheet });
    },
  });
  return (
    <section aria-labelledby="integrations-title">
      <h2 id="integrations-title">Integrations</h2>
      <ErrorLine error={connections.error ?? connect.error ?? complete.error ?? disconnect.error ?? pick.error} />
      {complete.data && <p role="status">Connected {complete.data.account_email}.</p>}
      <h3>Google Sheets</h3>
      <p>Connect an account to start campaigns from its spreadsheets; the platform reads only the sheets you pick.</p>
      <button type="button" disabled={connect.isPending} onClick={() => connect.mutate()}>
        Connect Google Sheets
      </button>
      <Table label="Connected accounts" columns={['Account', 'Provider', 'Connected', '', '']}>
        {connections.data?.items.map((connection) => (
          <tr key={connection.id}>
            <td>{connection.account_email}</td>
            <td>{connection.provider}</td>
            <td>{when(connection.created_at)}</td>
            <td>
              <button
                type="button"
                aria-label={`Choose a spreadsheet of ${connection.account_email}`}
                disabled={pick.isPending}
                onClick={() => pick.mutate(connection)}
              >
                Choose a spreadsheet
              </button>
            </td>
            <td>
              <button
                type="button"
                class="secondary"
                aria-label={`Disconnect ${connection.account_email}`}
                onClick={() => disconnect.mutate(connection)}
              >
                Disconnect
              </button>
            </td>
          </tr>
        ))}
      </Table>
      {picked && <SheetCampaign key={picked.sheet.id} connection={picked.connection} sheet={picked.sheet} />}
    </section>
  );
}

/** A campaign calling the rows of the picked spreadsheet (Name and Phone columns), started at once; retries as on the Campaigns page. */
function SheetCampaign({ connection, sheet }: { connection: Connection; sheet: PickedSheet }) {
  const api = useApi();
  const agents = useQuery({
    queryKey: ['agents', 'active', 'all'],
    queryFn: () => answer(api.GET('/agents', { params: { query: { status: 'active', limit: 100 } } })),
  });
  const [name, setName] = useState(sheet.name);
  const [agentId, setAgentId] = useState('');
  // The first agent until the user picks one: the select shows the agent the campaign will call with.
  const chosenAgent = agentId || agents.data?.[0]?.public_id;
  const [retries, setRetries] = useState(1);
  const create = useMutation({
    meta: { touches: ['campaigns'] },
    mutationFn: async () => {
      const campaign = await answer(
        api.POST('/campaigns', {
          body: {
            name,
            workflow_id: chosenAgent ?? '',
            source_type: 'google-sheet',
            source_id: sheet.id,
            source_config: { connection_id: connection.id },
            retry_config: retryConfigOf(retries),
          },
        }),
      );
      if (campaign.state === 'draft')
        await answer(api.POST('/campaigns/{campaign_id}/start', { params: { path: { campaign_id: campaign.id } } }));
      return campaign;
    },
    onSuccess: (campaign) => navigate('campaigns', campaign.id),
  });
  return (
    <form aria-labelledby="sheet-campaign-title" onSubmit={onSubmitRun(() => create.mutate())}>
      <h3 id="sheet-campaign-title">New campaign from {sheet.name}</h3>
      <p>
        Spreadsheet {sheet.id}, read through {connection.account_email}.
      </p>
      <label for="sheet-campaign-name">Campaign name</label>
      <input
        id="sheet-campaign-name"
        required
        maxLength={255}
        value={name}
        onInput={(e) => setName(e.currentTarget.value)}
      />
      <label for="sheet-campaign-agent">Agent</label>
      <select id="sheet-campaign-agent" value={chosenAgent ?? ''} onChange={(e) => setAgentId(e.currentTarget.value)}>
        {agents.data?.map((agent) => (
          <option value={agent.public_id} key={agent.public_id}>
            {agent.name}
          </option>
        ))}
      </select>
      <label for="sheet-campaign-retries">Retries after busy or no answer, an hour apart (0 to 5)</label>
      <input
        id="sheet-campaign-retries"
        type="number"
        min={0}
        max={5}
        value={retries}
        onInput={(e) => setRetries(Number(e.currentTarget.value))}
      />
      <ErrorLine error={agents.error ?? create.error} />
      {/* Not before the agents are read: the campaign would go out with no agent (a 422). */}
      <button type="submit" disabled={create.isPending || !chosenAgent}>
        Create and start campaign
      </button>
    </form>
  );
}
