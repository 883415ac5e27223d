/**
 * Phone numbers: the organization's numbers (a pending one's regulatory review, a rejected one's
 * reason) and the agent each answers with, the marketplace, purchase; a number that needs a
 * regulatory review (a Polish mobile) is bought with its subscriber's data, document scan and consent.
 */
import { useQuery } from '@tanstack/preact-query';
import { useMutation } from '../lib/mutation.ts';
import { useState } from 'preact/hooks';
import { answer, type Schemas, uploadNumberDocument, useApi } from '../lib/api.ts';
import { ErrorLine, LabelledInput, onSubmitRun, Pager, Table, when } from '../lib/ui.tsx';

type NumberType = Schemas['PurchaseNumberRequest']['number_type'];
type Offer = Schemas['MarketplaceNumber'];

/** How often the list is read again while a number awaits its review (the provider decides it). */
const REVIEW_REFRESH_MS = 2000;

/** A number's review as the list shows it: what a pending one waits for, why a rejected one was refused. */
const reviewOf = (number: Schemas['PhoneNumber']): string =>
  number.status === 'pending' || number.status === 'rejected' ? (number.order_status_reason ?? '') : '';

export function NumbersPage() {
  const api = useApi();
  const [page, setPage] = useState(1);
  const numbers = useQuery({
    queryKey: ['phone-numbers', page],
    queryFn: () => answer(api.GET('/phone-numbers', { params: { query: { page, limit: 20 } } })),
    refetchInterval: (current) =>
      current.state.data?.items.some((number) => number.status === 'pending') ? REVIEW_REFRESH_MS : false,
  });
  const agents = useQuery({
    queryKey: ['agents', 'active', 'all'],
    queryFn: () => answer(api.GET('/agents', { params: { query: { status: 'active', limit: 100 } } })),
  });
  const assign = useMutation({
    mutationFn: ({ numberId, agentId }: { numberId: number; agentId: number }) =>
      answer(api.POST('/phone-numbers/assign', { body: { phone_number_id: numberId, workflow_id: agentId } })),
    meta: { touches: ['phone-numbers'] },
  });
  return (
    <section aria-labelledby="numbers-title">
      <h2 id="numbers-title">Phone numbers</h2>
      <ErrorLine error={numbers.error ?? assign.error} />
      <Table
        label="Numbers of the organization"
        columns={['Number', 'Name', 'Status', 'Regulatory review', 'Monthly', 'Answers with', 'Purchased']}
      >
        {numbers.data?.items.map((number) => (
          <tr key={number.id}>
            <td>{number.phone_number}</td>
            <td>{number.friendly_name}</td>
            <td>{number.status}</td>
            <td>{reviewOf(number)}</td>
            <td>${number.monthly_cost_usd}</td>
            <td>
              <label class="visually-hidden" for={`assign-${number.id}`}>
                Agent answering {number.phone_number}
              </label>
              <select
                id={`assign-${number.id}`}
                value={number.workflow_id ?? ''}
                onChange={(e) => assign.mutate({ numberId: number.id, agentId: Number(e.currentTarget.value) })}
              >
                <option value="">Nobody</option>
                {agents.data?.map((agent) => (
                  <option value={agent.id} key={agent.id}>
                    {agent.name}
                  </option>
                ))}
              </select>
            </td>
            <td>{when(number.purchased_at)}</td>
          </tr>
        ))}
      </Table>
      <Pager page={page} totalPages={numbers.data?.total_pages ?? 1} onPage={setPage} label="numbers" />
      <Marketplace />
    </section>
  );
}

function Marketplace() {
  const api = useApi();
  const [countryCode, setCountryCode] = useState('PL');
  const [numberType, setNumberType] = useState<NumberType>('local');
  const [consent, setConsent] = useState(false);
  const [search, setSearch] = useState<{ country: string; type: NumberType } | null>(null);
  const found = useQuery({
    // Under the numbers' key: a purchase makes the offers stale too (the number bought is no longer one).
    queryKey: ['phone-numbers', 'marketplace', search],
    enabled: search !== null,
    queryFn: () =>
      answer(
        api.GET('/phone-numbers/marketplace', {
          params: { query: { country_code: search!.country, number_type: search!.type, limit: 20 } },
        }),
      ),
  });
  // An offer that needs a regulatory review is bought through its subscriber's form, not at once.
  const [reviewed, setReviewed] = useState<Offer | null>(null);
  const buy = useMutation({
    mutationFn: (number: Offer) =>
      answer(api.POST('/phone-numbers/marketplace/purchase', { body: purchaseOf(number, consent) })),
    meta: { touches: ['phone-numbers'] },
  });
  return (
    <section aria-labelledby="marketplace-title">
      <h3 id="marketplace-title">Buy a number</h3>
      <form class="filters" onSubmit={onSubmitRun(() => setSearch({ country: countryCode, type: numberType }))}>
        <div>
          <label for="market-country">Country (ISO code)</label>
          <input
            id="market-country"
            required
            maxLength={2}
            value={countryCode}
            onInput={(e) => setCountryCode(e.currentTarget.value.toUpperCase())}
          />
        </div>
        <div>
          <label for="market-type">Type</label>
          <select
            id="market-type"
            value={numberType}
            onChange={(e) => setNumberType(e.currentTarget.value as NumberType)}
          >
            <option value="local">Local</option>
            <option value="mobile">Mobile</option>
            <option value="toll_free">Toll-free</option>
          </select>
        </div>
        <div>
          <button type="submit">Search</button>
        </div>
      </form>
      <label class="inline">
        <input type="checkbox" checked={consent} onChange={(e) => setConsent(e.currentTarget.checked)} /> I accept the
        monthly charge of the number I buy
      </label>
      <ErrorLine error={found.error ?? buy.error} />
      {buy.data && (
        <p role="status">
          Bought {buy.data.phone_number} ({buy.data.status}).
        </p>
      )}
      <Table label="Numbers for sale" columns={['Number', 'Type', 'Monthly', '']}>
        {found.data?.items.map((number) => (
          <tr key={number.phone_number}>
            <td>{number.phone_number}</td>
            <td>
              {number.number_type}
              {number.requires_regulatory_review ? ' (regulatory review)' : ''}
            </td>
            <td>${number.monthly_cost_usd}</td>
            <td>
              <button
                type="button"
                disabled={!consent || buy.isPending}
                onClick={() => (number.requires_regulatory_review ? setReviewed(number) : buy.mutate(number))}
              >
                Buy {number.phone_number}
              </button>
            </td>
          </tr>
        ))}
      </Table>
      {reviewed && consent && <SubscriberForm key={reviewed.phone_number} offer={reviewed} />}
    </section>
  );
}

/** The purchase of an offer; `extra` is what a regulated number adds (its subscriber). */
const purchaseOf = (
  number: Offer,
  consent: boolean,
  extra: Partial<Schemas['PurchaseNumberRequest']> = {},
): Schemas['PurchaseNumberRequest'] => ({
  phone_number: number.phone_number,
  country_code: number.country_code,
  number_type: number.number_type as NumberType,
  consent,
  ...extra,
});

type DocumentType = Schemas['EndUser']['document_type'];

/**
 * A regulated number's purchase: the subscriber's data, the scan of their document (uploaded first,
 * `POST /phone-numbers/documents`), their consent and your own id of them (`end_user_id`), which the
 * provider's review and the number's events carry back. The number is then pending until the review.
 */
function SubscriberForm({ offer }: { offer: Offer }) {
  const api = useApi();
  const [name, setName] = useState('');
  const [address, setAddress] = useState('');
  const [documentType, setDocumentType] = useState<DocumentType>('id_card');
  const [documentNumber, setDocumentNumber] = useState('');
  const [scan, setScan] = useState<File | null>(null);
  const [endUserId, setEndUserId] = useState('');
  const [subscriberConsent, setSubscriberConsent] = useState(false);
  const submit = useMutation({
    mutationFn: async () => {
      const documentId = await uploadNumberDocument(api, scan!);
      return answer(
        api.POST('/phone-numbers/marketplace/purchase', {
          body: purchaseOf(offer, subscriberConsent, {
            end_user_id: Number(endUserId),
            end_user: {
              name,
              address,
              document_type: documentType,
              document_number: documentNumber,
              document_id: documentId,
            },
          }),
        }),
      );
    },
    meta: { touches: ['phone-numbers'] },
  });
  const id = (field: string) => `subscriber-${field}`;
  return (
    <form aria-labelledby="subscriber-title" onSubmit={onSubmitRun(() => submit.mutate())}>
      <h3 id="subscriber-title">Subscriber of {offer.phone_number}</h3>
      <p>This number is sold only after the provider's regulatory review of its subscriber.</p>
      <LabelledInput
        id={id('name')}
        label="Subscriber's name (given names, then family name; or the company's)"
        required
        maxLength={255}
        value={name}
        onValue={setName}
      />
      <LabelledInput
        id={id('address')}
        label="Subscriber's address"
        required
        maxLength={500}
        value={address}
        onValue={setAddress}
      />
      <label for={id('document-type')}>Identity document</label>
      <select
        id={id('document-type')}
        value={documentType}
        onChange={(e) => setDocumentType(e.currentTarget.value as DocumentType)}
      >
        <option value="id_card">ID card</option>
        <option value="passport">Passport</option>
        <option value="company_registration">Company registration</option>
      </select>
      <LabelledInput
        id={id('document-number')}
        label="Document number"
        required
        maxLength={64}
        value={documentNumber}
        onValue={setDocumentNumber}
      />
      <label for={id('scan')}>Scan of the document (PDF, JPEG or PNG, at most 4 MiB)</label>
      <input
        id={id('scan')}
        type="file"
        required
        accept="application/pdf,image/jpeg,image/png"
        onChange={(e) => setScan(e.currentTarget.files?.[0] ?? null)}
      />
      <LabelledInput
        id={id('end-user-id')}
        label="Your id of this subscriber (end_user_id)"
        type="number"
        required
        min={1}
        value={endUserId}
        onValue={setEndUserId}
      />
      <label class="inline">
        <input
          type="checkbox"
          required
          checked={subscriberConsent}
          onChange={(e) => setSubscriberConsent(e.currentTarget.checked)}
        />{' '}
        The subscriber consents to the number and to the review of their data
      </label>
      <ErrorLine error={submit.error} />
      {submit.data && (
        <p role="status">
          Submitted {submit.data.phone_number} for review ({submit.data.status}).
        </p>
      )}
      <button type="submit" disabled={submit.isPending || submit.isSuccess}>
        Submit {offer.phone_number} for review
      </button>
    </form>
  );
}
