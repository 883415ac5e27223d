/**
 * Campaigns: the list; a new campaign from contacts typed in or a CSV or Excel file (its upload's progress,
 * then the background import's), with calling window and retries; one campaign's page with its
 * progress live (contacts by state, a progress bar, throughput), start/pause/resume/cancel, the
 * per-contact report and its CSV download.
 */
import { useQuery, useQueryClient } from '@tanstack/preact-query';
import { useMutation } from '../lib/mutation.ts';
import { useState } from 'preact/hooks';
import { answer, type Connection, detailOf, download, type Schemas, useApi, useConnection } from '../lib/api.ts';
import { contactsCsv } from '../lib/contacts-file.ts';
import { retryConfigOf } from '../lib/retry-config.ts';
import { href, navigate } from '../lib/route.ts';
import { ErrorLine, onSubmitRun, Pager, Table, when } from '../lib/ui.tsx';

type Campaign = Schemas['Campaign'];
type CreateCampaign = Schemas['CampaignCreateRequest'];
const PAGE_SIZE = 20;
const LIVE_REFRESH_MS = 2_000;
const LIVE_STATES: Campaign['state'][] = ['importing', 'scheduled', 'running'];

export function CampaignsPage() {
  const api = useApi();
  const [page, setPage] = useState(1);
  const campaigns = useQuery({
    queryKey: ['campaigns', page],
    queryFn: () => answer(api.GET('/campaigns', { params: { query: { page, limit: PAGE_SIZE } } })),
    refetchInterval: (current) =>
      current.state.data?.items.some((campaign) => LIVE_STATES.includes(campaign.state)) ? LIVE_REFRESH_MS : false,
  });
  return (
    <section aria-labelledby="campaigns-title">
      <h2 id="campaigns-title">Campaigns</h2>
      <ErrorLine error={campaigns.error} />
      <Table label="Campaigns" columns={['Name', 'Agent', 'State', 'Progress', 'Created']}>
        {campaigns.data?.items.map((campaign) => (
          <tr key={campaign.id}>
            <td>
              <a href={href('campaigns', campaign.id)}>{campaign.name}</a>
            </td>
            <td>{campaign.workflow_name}</td>
            <td>{campaign.state}</td>
            <td>
              {campaign.processed_rows} / {campaign.total_rows ?? '…'}
            </td>
            <td>{when(campaign.created_at)}</td>
          </tr>
        ))}
      </Table>
      <Pager page={page} totalPages={campaigns.data?.total_pages ?? 1} onPage={setPage} label="campaigns" />
      <NewCampaign />
    </section>
  );
}

/** Contacts typed one a line: `+48601234567, First, Last`. */
const manualContacts = (text: string): Schemas['ManualContact'][] =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const [phone_number = '', first_name = '', last_name = ''] = line.split(',').map((part) => part.trim());
      return { phone_number, first_name, last_name };
    });

/**
 * Creates the campaign with XMLHttpRequest rather than the typed client: only it reports the upload
 * of a large CSV as it goes (fetch has no upload progress).
 */
function postCampaign(connection: Connection, body: CreateCampaign, onProgress: (fraction: number) => void) {
  return new Promise<Campaign>((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', `${connection.baseUrl}/campaigns`);
    request.setRequestHeader('X-API-Key', connection.key);
    request.setRequestHeader('Content-Type', 'application/json');
    request.responseType = 'json';
    request.upload.onprogress = (event) => event.lengthComputable && onProgress(event.loaded / event.total);
    request.onload = () =>
      request.status === 200
        ? resolve(request.response as Campaign)
        : reject(new Error(detailOf(request.response, request.status)));
    request.onerror = () => reject(new Error('The API could not be reached'));
    request.send(JSON.stringify(body));
  });
}

function NewCampaign() {
  const connection = useConnection();
  const agents = useQuery({
    queryKey: ['agents', 'active', 'all'],
    queryFn: () => answer(connection.api.GET('/agents', { params: { query: { status: 'active', limit: 100 } } })),
  });
  const [name, setName] = useState('');
  const [agentId, setAgentId] = useState('');
  // The first agent until the user picks one: the select shows the agent the campaign will call with.
  const chosenAgent = agentId || agents.data?.[0]?.public_id;
  const [source, setSource] = useState<'manual' | 'csv'>('csv');
  const [contacts, setContacts] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [windowOn, setWindowOn] = useState(false);
  const [timezone, setTimezone] = useState(Intl.DateTimeFormat().resolvedOptions().timeZone);
  const [start, setStart] = useState('09:00');
  const [end, setEnd] = useState('18:00');
  const [retries, setRetries] = useState(1);
  const [retryDelay, setRetryDelay] = useState(3600);
  const [startNow, setStartNow] = useState(true);
  const [uploaded, setUploaded] = useState(0);
  const create = useMutation({
    mutationFn: async () => {
      const body: CreateCampaign = {
        name,
        workflow_id: chosenAgent ?? '',
        source_type: source,
        source_id: source === 'csv' ? (file?.name ?? '') : '',
        retry_config: retryConfigOf(retries, retryDelay),
        ...(source === 'csv'
          ? { source_config: { csv_text: file ? await contactsCsv(file) : '' } }
          : { manual_contacts: manualContacts(contacts) }),
        ...(windowOn ? { calling_window: { timezone, start, end, days: [1, 2, 3, 4, 5] } } : {}),
      };
      const campaign = await postCampaign(connection, body, setUploaded);
      if (startNow && campaign.state === 'draft') {
        await answer(
          connection.api.POST('/campaigns/{campaign_id}/start', { params: { path: { campaign_id: campaign.id } } }),
        );
      }
      return campaign;
    },
    onSuccess: (campaign) => navigate('campaigns', campaign.id),
  });
  return (
    <form aria-labelledby="new-campaign-title" onSubmit={onSubmitRun(() => create.mutate())}>
      <h3 id="new-campaign-title">New campaign</h3>
      <label for="campaign-name">Name</label>
      <input id="campaign-name" required maxLength={255} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      <label for="campaign-agent">Agent</label>
      <select id="campaign-agent" value={chosenAgent ?? ''} onChange={(e) => setAgentId(e.currentTarget.value)}>
        {agents.data?.map((agent) => (
          <option value={agent.public_id} key={agent.public_id}>
            {agent.name}
          </option>
        ))}
      </select>
      <fieldset>
        <legend>Contacts</legend>
        <label class="inline">
          <input type="radio" name="source" checked={source === 'csv'} onChange={() => setSource('csv')} /> A file (CSV
          or Excel: a header row; the phone column is found by its name or its values)
        </label>
        <label class="inline">
          <input type="radio" name="source" checked={source === 'manual'} onChange={() => setSource('manual')} /> Typed
          in
        </label>
        {source === 'csv' ? (
          <>
            <label for="campaign-file">CSV or Excel file</label>
            <input
              id="campaign-file"
              type="file"
              accept=".csv,text/csv,.xlsx,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
              required
              onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)}
            />
          </>
        ) : (
          <>
            <label for="campaign-contacts">One contact a line: number, first name, last name</label>
            <textarea
              id="campaign-contacts"
              rows={5}
              required
              value={contacts}
              onInput={(e) => setContacts(e.currentTarget.value)}
            />
          </>
        )}
      </fieldset>
      <fieldset>
        <legend>When and how often</legend>
        <label class="inline">
          <input type="checkbox" checked={windowOn} onChange={(e) => setWindowOn(e.currentTarget.checked)} /> Only call
          within hours (Monday to Friday)
        </label>
        {windowOn && (
          <div class="filters">
            <div>
              <label for="window-timezone">Timezone</label>
              <input id="window-timezone" value={timezone} onInput={(e) => setTimezone(e.currentTarget.value)} />
            </div>
            <div>
              <label for="window-start">From</label>
              <input id="window-start" type="time" value={start} onInput={(e) => setStart(e.currentTarget.value)} />
            </div>
            <div>
              <label for="window-end">Until</label>
              <input id="window-end" type="time" value={end} onInput={(e) => setEnd(e.currentTarget.value)} />
            </div>
          </div>
        )}
        <label for="campaign-retries">Retries after busy or no answer (0 to 5)</label>
        <input
          id="campaign-retries"
          type="number"
          min={0}
          max={5}
          value={retries}
          onInput={(e) => setRetries(Number(e.currentTarget.value))}
        />
        <label for="campaign-retry-delay">Seconds before a retry</label>
        <input
          id="campaign-retry-delay"
          type="number"
          min={60}
          max={86400}
          value={retryDelay}
          onInput={(e) => setRetryDelay(Number(e.currentTarget.value))}
        />
        <label class="inline">
          <input type="checkbox" checked={startNow} onChange={(e) => setStartNow(e.currentTarget.checked)} /> Start as
          soon as it is created
        </label>
      </fieldset>
      {/* Not before the agents are read: the campaign would go out with no agent (a 422). */}
      <button type="submit" disabled={create.isPending || !chosenAgent}>
        Create campaign
      </button>
      {create.isPending && (
        <p>
          <label for="upload-progress">Uploading</label>
          <progress id="upload-progress" max={1} value={uploaded} />
        </p>
      )}
      <ErrorLine error={create.error} />
    </form>
  );
}

/** Contacts finished per minute since the campaign started. */
const throughput = (campaign: Campaign, now: number): string => {
  if (!campaign.started_at || campaign.processed_rows === 0) return '';
  const minutes =
    ((campaign.completed_at ? Date.parse(campaign.completed_at) : now) - Date.parse(campaign.started_at)) / 60_000;
  return `${(campaign.processed_rows / Math.max(minutes, 1 / 60)).toFixed(1)} contacts a minute`;
};

export function CampaignPage({ campaignId }: { campaignId: number }) {
  const connection = useConnection();
  const { api } = connection;
  const queries = useQueryClient();
  const path = { campaign_id: campaignId };
  const campaign = useQuery({
    queryKey: ['campaign', campaignId],
    queryFn: () => answer(api.GET('/campaigns/{campaign_id}', { params: { path } })),
    refetchInterval: (current) =>
      current.state.data && LIVE_STATES.includes(current.state.data.state) ? LIVE_REFRESH_MS : false,
  });
  const [page, setPage] = useState(1);
  const report = useQuery({
    queryKey: ['campaign-report', campaignId, page, campaign.data?.processed_rows, campaign.data?.state],
    enabled: campaign.data !== undefined && campaign.data.state !== 'importing',
    queryFn: () =>
      answer(api.GET('/campaigns/{campaign_id}/report', { params: { path, query: { page, limit: PAGE_SIZE } } })),
  });
  const act = useMutation({
    mutationFn: (action: 'start' | 'pause' | 'resume' | 'cancel') =>
      answer(api.POST(`/campaigns/{campaign_id}/${action}`, { params: { path } })),
    onSuccess: (updated) => queries.setQueryData(['campaign', campaignId], updated),
  });
  const save = useMutation({
    mutationFn: () => download(connection, `/campaigns/${campaignId}/report.csv`, `campaign-${campaignId}.csv`),
  });
  if (!campaign.data) return <ErrorLine error={campaign.error ?? new Error('Loading…')} />;
  const current = campaign.data;
  const total = current.total_rows ?? 0;
  const remaining = Math.max(0, total - current.processed_rows);
  return (
    <section aria-labelledby="campaign-title">
      <p>
        <a href={href('campaigns')}>All campaigns</a>
      </p>
      <h2 id="campaign-title">{current.name}</h2>
      <ErrorLine error={campaign.error ?? act.error ?? save.error} />
      <dl class="counts">
        <dt>State</dt>
        <dd aria-label="Campaign state">{current.state}</dd>
        <dt>Agent</dt>
        <dd>{current.workflow_name}</dd>
        <dt>Contacts</dt>
        <dd>{current.total_rows ?? 'importing…'}</dd>
        <dt>Finished</dt>
        <dd>{current.processed_rows}</dd>
        <dt>Could not be called</dt>
        <dd>{current.failed_rows}</dd>
        <dt>Still to call</dt>
        <dd>{remaining}</dd>
        <dt>Throughput</dt>
        <dd>{throughput(current, Date.now())}</dd>
      </dl>
      {current.import_error && <p role="alert">Import failed: {current.import_error}</p>}
      <label for="campaign-progress">Progress</label>
      <progress id="campaign-progress" max={Math.max(total, 1)} value={current.processed_rows} />
      <div class="actions">
        {current.state === 'draft' && (
          <button type="button" onClick={() => act.mutate('start')}>
            Start
          </button>
        )}
        {(current.state === 'running' || current.state === 'scheduled') && (
          <button type="button" onClick={() => act.mutate('pause')}>
            Pause
          </button>
        )}
        {current.state === 'paused' && (
          <button type="button" onClick={() => act.mutate('resume')}>
            Resume
          </button>
        )}
        {!['completed', 'cancelled', 'import_failed'].includes(current.state) && (
          <button type="button" class="secondary" onClick={() => act.mutate('cancel')}>
            Cancel
          </button>
        )}
        <button type="button" class="secondary" onClick={() => save.mutate()}>
          Download the report (CSV)
        </button>
      </div>
      <h3>Contacts</h3>
      <Table label="Campaign report" columns={['Row', 'Number', 'Name', 'Status', 'Attempts', 'Disposition', 'Call']}>
        {report.data?.items.map((row) => (
          <tr key={row.row}>
            <td>{row.row}</td>
            <td>{row.phone_number}</td>
            <td>
              {row.first_name} {row.last_name}
            </td>
            <td>{row.error ? `${row.status}: ${row.error}` : row.status}</td>
            <td>{row.attempts}</td>
            {/* A deleted call's disposition was erased with it, and its page is gone. */}
            <td>{row.run_erased_at ? 'erased' : (row.call_disposition ?? '')}</td>
            <td>
              {row.run_erased_at
                ? 'deleted'
                : row.run_id !== null && <a href={href('calls', current.workflow_id, row.run_id)}>Open</a>}
            </td>
          </tr>
        ))}
      </Table>
      <Pager page={page} totalPages={report.data?.total_pages ?? 1} onPage={setPage} label="contacts" />
    </section>
  );
}
