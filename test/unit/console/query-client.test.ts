import { MutationObserver, QueryObserver } from '@tanstack/preact-query';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { queryClient } from '../../../web/console/lib/api.ts';

afterEach(() => queryClient.clear());

/**
 * A list the console shows (its first read held until `answerFirstRead`) and a change that
 * touches it, both against `stored`, as the API's table.
 */
function listAndChange() {
  const stored: string[] = [];
  const reads: string[][] = [];
  let answerFirstRead = () => {};
  const list = new QueryObserver(queryClient, {
    queryKey: ['do-not-call', 1],
    queryFn: async () => {
      const snapshot = [...stored];
      reads.push(snapshot);
      if (reads.length === 1) await new Promise<void>((resolve) => (answerFirstRead = resolve));
      return snapshot;
    },
  });
  const unsubscribe = list.subscribe(() => {});
  const add = new MutationObserver(queryClient, {
    mutationFn: async (number: string) => {
      stored.push(number);
    },
    meta: { touches: ['do-not-call'] },
  });
  return { stored, reads, list, add, unsubscribe, answerFirstRead: () => answerFirstRead() };
}

describe("the console's query client after a change", () => {
  it('reads a list again when its first read, begun before the change, is answered after it', async () => {
    const { stored, reads, list, add, unsubscribe, answerFirstRead } = listAndChange();
    expect(reads).toEqual([[]]);
    const added = add.mutate('+61293744005');
    await vi.waitFor(() => expect(stored).toEqual(['+61293744005']));
    // The change's answer handled (no I/O here: one macrotask runs every promise job queued).
    await new Promise((resolve) => setTimeout(resolve, 0));
    answerFirstRead();
    await added;
    await vi.waitFor(() => expect(list.getCurrentResult().data).toEqual(['+61293744005']));
    expect(reads).toEqual([[], ['+61293744005']]);
    unsubscribe();
  });

  it('reads a list shown again after a change, once', async () => {
    const { reads, list, add, unsubscribe, answerFirstRead } = listAndChange();
    answerFirstRead();
    await vi.waitFor(() => expect(list.getCurrentResult().status).toBe('success'));
    await add.mutate('+61293744005');
    expect(list.getCurrentResult().data).toEqual(['+61293744005']);
    expect(reads).toEqual([[], ['+61293744005']]);
    unsubscribe();
  });
});
