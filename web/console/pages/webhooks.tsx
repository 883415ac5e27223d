/**
 * Webhooks: endpoints (create, change their events, rotate the signing secret, delete), a test
 * send, and the selected endpoint's deliveries with their attempts and a retry.
 */
import { useQuery } from '@tanstack/preact-query';
import { useMutation } from '../lib/mutation.ts';
import { useState } from 'preact/hooks';
import { answer, type Schemas, useApi } from '../lib/api.ts';
import { ErrorLine, onSubmitRun, Pager, Table, when } from '../lib/ui.tsx';

type EventType = Schemas['WebhookEventType'];
type Delivery = Schemas['WebhookDelivery'];
const EVENT_TYPES: EventType[] = [
  'call.started',
  'call.completed',
  'call.failed',
  'campaign.completed',
  'campaign.paused',
];

function EventChoice({
  chosen,
  onChange,
  idPrefix,
}: {
  chosen: EventType[];
  onChange: (events: EventType[]) => void;
  idPrefix: string;
}) {
  return (
    <fieldset>
      <legend>Events</legend>
      {EVENT_TYPES.map((type) => (
        <label class="inline" key={type} for={`${idPrefix}-${type}`}>
          <input
            id={`${idPrefix}-${type}`}
            type="checkbox"
            checked={chosen.includes(type)}
            onChange={(e) => onChange(e.currentTarget.checked ? [...chosen, type] : chosen.filter((t) => t !== type))}
          />{' '}
          {type}
        </label>
      ))}
    </fieldset>
  );
}

export function WebhooksPage() {
  const api = useApi();
  const webhooks = useQuery({
    queryKey: ['webhooks'],
    queryFn: () => answer(api.GET('/webhooks', { params: { query: { limit: 100 } } })),
  });
  const [chosen, setChosen] = useState('');
  const [page, setPage] = useState(1);
  const selected = webhooks.data?.items.find((webhook) => webhook.id === chosen) ?? webhooks.data?.items[0];
  const deliveries = useQuery({
    queryKey: ['deliveries', selected?.id, page],
    enabled: selected !== undefined,
    queryFn: () =>
      answer(
        api.GET('/webhooks/{webhook_id}/deliveries', {
          params: { path: { webhook_id: selected!.id }, query: { page, limit: 20 } },
        }),
      ),
  });
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<EventType[]>(['call.completed']);
  const [secret, setSecret] = useState('');
  const create = useMutation({
    mutationFn: () => answer(api.POST('/webhooks', { body: { url, events } })),
    meta: { touches: ['webhooks'] },
    onSuccess: (created) => {
      setSecret(`Signing secret of ${created.url}: ${created.secret}`);
      setChosen(created.id);
      setUrl('');
    },
  });
  const path = () => ({ webhook_id: selected!.id });
  const update = useMutation({
    mutationFn: (changed: EventType[]) =>
      answer(api.PATCH('/webhooks/{webhook_id}', { params: { path: path() }, body: { events: changed } })),
    meta: { touches: ['webhooks'] },
  });
  const rotate = useMutation({
    mutationFn: () =>
      answer(
        api.POST('/webhooks/{webhook_id}/rotate-secret', { params: { path: path() }, body: { overlap_seconds: 3600 } }),
      ),
    meta: { touches: ['webhooks'] },
    onSuccess: (rotated) =>
      setSecret(`New signing secret of ${rotated.url}: ${rotated.secret} (the old one is accepted for an hour)`),
  });
  const remove = useMutation({
    mutationFn: () => answer(api.DELETE('/webhooks/{webhook_id}', { params: { path: path() } })),
    meta: { touches: ['webhooks'] },
    onSuccess: () => setChosen(''),
  });
  const test = useMutation({
    mutationFn: () => answer(api.POST('/webhooks/{webhook_id}/test', { params: { path: path() } })),
  });
  const retry = useMutation({
    mutationFn: (delivery: Delivery) =>
      answer(
        api.POST('/webhooks/{webhook_id}/deliveries/{delivery_id}/retry', {
          params: { path: { ...path(), delivery_id: delivery.message_id } },
        }),
      ),
    meta: { touches: ['deliveries'] },
  });
  const tested = test.data;
  return (
    <section aria-labelledby="webhooks-title">
      <h2 id="webhooks-title">Webhooks</h2>
      <ErrorLine
        error={
          webhooks.error ??
          deliveries.error ??
          create.error ??
          update.error ??
          rotate.error ??
          remove.error ??
          test.error ??
          retry.error
        }
      />
      <p role="status">
        {secret}
        {tested &&
          (tested.delivered
            ? ` Test ${tested.event_type} delivered: the endpoint answered ${tested.status_code} in ${tested.duration_ms} ms.`
            : ` Test ${tested.event_type} not delivered: ${tested.status_code ?? tested.error}.`)}
        {retry.isSuccess ? ` ${retry.variables.event_type} is being sent again.` : ''}
      </p>
      <label for="webhook">Endpoint</label>
      <select
        id="webhook"
        value={selected?.id ?? ''}
        onChange={(e) => {
          setChosen(e.currentTarget.value);
          setPage(1);
        }}
      >
        {webhooks.data?.items.map((webhook) => (
          <option value={webhook.id} key={webhook.id}>
            {webhook.url} ({webhook.events.join(', ')}, {webhook.status})
          </option>
        ))}
      </select>
      {selected && (
        <>
          {selected.disabled_reason && <p role="alert">Disabled: {selected.disabled_reason}</p>}
          <EventChoice
            key={selected.id}
            idPrefix="selected-event"
            chosen={selected.events as EventType[]}
            onChange={(changed) => update.mutate(changed)}
          />
          <div class="actions">
            <button type="button" onClick={() => test.mutate()}>
              Send a test event
            </button>
            <button type="button" class="secondary" onClick={() => void deliveries.refetch()}>
              Refresh deliveries
            </button>
            <button type="button" class="secondary" onClick={() => rotate.mutate()}>
              Rotate the secret
            </button>
            <button type="button" class="secondary" onClick={() => remove.mutate()}>
              Delete the endpoint
            </button>
          </div>
        </>
      )}
      <Table
        label="Deliveries to the endpoint"
        columns={['Event', 'Status', 'Attempts', 'Last answer', 'Next attempt', '']}
      >
        {deliveries.data?.items.map((delivery) => {
          const last = delivery.attempts.at(-1);
          return (
            <tr key={delivery.message_id}>
              <td>{delivery.event_type}</td>
              <td>{delivery.status}</td>
              <td>{delivery.attempts.length}</td>
              <td>{last ? (last.status_code ?? last.error) : ''}</td>
              <td>{when(delivery.next_attempt_at)}</td>
              <td>
                {delivery.status !== 'pending' && (
                  <button type="button" onClick={() => retry.mutate(delivery)}>
                    Retry {delivery.event_type}
                  </button>
                )}
              </td>
            </tr>
          );
        })}
      </Table>
      <Pager page={page} totalPages={deliveries.data?.total_pages ?? 1} onPage={setPage} label="deliveries" />
      <form aria-labelledby="new-webhook-title" onSubmit={onSubmitRun(() => create.mutate())}>
        <h3 id="new-webhook-title">New endpoint</h3>
        <label for="webhook-url">URL (https)</label>
        <input id="webhook-url" type="url" required value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
        <EventChoice idPrefix="new-event" chosen={events} onChange={setEvents} />
        <button type="submit" disabled={events.length === 0 || create.isPending}>
          Add endpoint
        </button>
      </form>
    </section>
  );
}
