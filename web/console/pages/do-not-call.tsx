/** The organization's Do-not-call list: numbers no call or campaign dials. */
import { useQuery } from '@tanstack/preact-query';
import { useMutation } from '../lib/mutation.ts';
import { useState } from 'preact/hooks';
import { answer, useApi } from '../lib/api.ts';
import { ErrorLine, onSubmitRun, Pager, Table, when } from '../lib/ui.tsx';

export function DoNotCallPage() {
  const api = useApi();
  const [page, setPage] = useState(1);
  const entries = useQuery({
    queryKey: ['do-not-call', page],
    queryFn: () => answer(api.GET('/do-not-call', { params: { query: { page, limit: 50 } } })),
  });
  const [phoneNumber, setPhoneNumber] = useState('');
  const add = useMutation({
    mutationFn: () => answer(api.POST('/do-not-call', { body: { phone_number: phoneNumber } })),
    meta: { touches: ['do-not-call'] },
    onSuccess: () => setPhoneNumber(''),
  });
  const remove = useMutation({
    mutationFn: (number: string) =>
      answer(api.DELETE('/do-not-call/{phone_number}', { params: { path: { phone_number: number } } })),
    meta: { touches: ['do-not-call'] },
  });
  return (
    <section aria-labelledby="dnc-title">
      <h2 id="dnc-title">Do-not-call</h2>
      <ErrorLine error={entries.error ?? add.error ?? remove.error} />
      <form onSubmit={onSubmitRun(() => add.mutate())}>
        <label for="dnc-number">Number (E.164)</label>
        <input
          id="dnc-number"
          type="tel"
          required
          value={phoneNumber}
          onInput={(e) => setPhoneNumber(e.currentTarget.value)}
        />
        <button type="submit" disabled={add.isPending}>
          Add to the list
        </button>
      </form>
      <Table label="Do-not-call numbers" columns={['Number', 'Added', '']}>
        {entries.data?.items.map((entry) => (
          <tr key={entry.phone_number}>
            <td>{entry.phone_number}</td>
            <td>{when(entry.created_at)}</td>
            <td>
              <button type="button" class="secondary" onClick={() => remove.mutate(entry.phone_number)}>
                Remove {entry.phone_number}
              </button>
            </td>
          </tr>
        ))}
      </Table>
      <Pager page={page} totalPages={entries.data?.total_pages ?? 1} onPage={setPage} label="numbers" />
    </section>
  );
}
