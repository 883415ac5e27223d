/** Phone numbers: the organization's numbers and the agent each answers with, the marketplace, purchase. */
import { useMutation, useQuery } from '@tanstack/preact-query';
import { useState } from 'preact/hooks';
import { answer, type Schemas, useApi } from '../lib/api.ts';
import { ErrorLine, onSubmitRun, Pager, Table, when } from '../lib/ui.tsx';

type NumberType = Schemas['PurchaseNumberRequest']['number_type'];

export function NumbersPage() {
  const api = useApi();
  const [page, setPage] = useState(1);
  const numbers = useQuery({
    queryKey: ['phone-numbers', page],
    queryFn: () => answer(api.GET('/phone-numbers', { params: { query: { page, limit: 20 } } })),
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
        columns={['Number', 'Name', 'Status', 'Monthly', 'Answers with', 'Purchased']}
      >
        {numbers.data?.items.map((number) => (
          <tr key={number.id}>
            <td>{number.phone_number}</td>
            <td>{number.friendly_name}</td>
            <td>{number.status}</td>
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
    queryKey: ['marketplace', search],
    enabled: search !== null,
    queryFn: () =>
      answer(
        api.GET('/phone-numbers/marketplace', {
          params: { query: { country_code: search!.country, number_type: search!.type, limit: 20 } },
        }),
      ),
  });
  const buy = useMutation({
    mutationFn: (number: Schemas['MarketplaceNumber']) =>
      answer(
        api.POST('/phone-numbers/marketplace/purchase', {
          body: {
            phone_number: number.phone_number,
            country_code: number.country_code,
            number_type: number.number_type as NumberType,
            consent,
          },
        }),
      ),
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
              <button type="button" disabled={!consent || buy.isPending} onClick={() => buy.mutate(number)}>
                Buy {number.phone_number}
              </button>
            </td>
          </tr>
        ))}
      </Table>
    </section>
  );
}
