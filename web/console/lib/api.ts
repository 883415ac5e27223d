/**
 * The console's access to the public API: the generated typed client (openapi-fetch) with the
 * organization's key, the API's own error messages, and TanStack Query for caching, refetching a
 * live call or campaign, and invalidating what a change touched.
 */
import { MutationCache, QueryCache, QueryClient } from '@tanstack/preact-query';
import createClient from 'openapi-fetch';
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { components, paths } from '../../../client/openapi.d.ts';

/** Where the key and the API's base URL are kept for this browser session (sessionStorage). */
export const KEY_STORAGE = 'voice-agent-api-key';
export const BASE_URL_STORAGE = 'voice-agent-base-url';

export type Api = ReturnType<typeof createClient<paths>>;
export type Schemas = components['schemas'];

export interface Connection {
  api: Api;
  baseUrl: string;
  key: string;
}

export const connect = (baseUrl: string, key: string): Connection => ({
  api: createClient<paths>({ baseUrl, headers: { 'X-API-Key': key } }),
  baseUrl,
  key,
});

/** The API's own message for an error body (`detail`, a string or FastAPI's list). */
export function detailOf(error: unknown, status: number): string {
  const detail = (error as { detail?: unknown } | undefined)?.detail;
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail))
    return detail.map((item: { loc?: unknown[]; msg?: string }) => `${item.loc?.at(-1) ?? ''}: ${item.msg}`).join('; ');
  return `The API answered ${status}`;
}

/** An error answer of the API: its own message, and its status. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** `data`, or the API's error as an exception with its own message. */
export async function answer<T>(request: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await request;
  if (error !== undefined || (data === undefined && response.status !== 204)) {
    throw new ApiError(detailOf(error, response.status), response.status);
  }
  return data as T;
}

/** A list answered as a plain array, with its page count in `X-Total-Pages` (the agents). */
export async function answerWithPages<T>(
  request: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<{ items: T; totalPages: number }> {
  const { response } = await request;
  const items = await answer(request);
  return { items, totalPages: Number(response.headers.get('X-Total-Pages') ?? 1) };
}

/** Told when the API refuses the key (revoked meanwhile): the console goes back to its sign-in. */
export const keyRefused = new EventTarget();
const refusedKey = (error: Error) => {
  if (error instanceof ApiError && error.status === 401)
    keyRefused.dispatchEvent(new CustomEvent('refused', { detail: error.message }));
};

declare module '@tanstack/preact-query' {
  interface Register {
    /** `touches`: the query key (prefix) a change makes stale, read again once it succeeds. */
    mutationMeta: { touches?: readonly unknown[] };
  }
}

export const queryClient: QueryClient = new QueryClient({
  defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } },
  queryCache: new QueryCache({ onError: refusedKey }),
  mutationCache: new MutationCache({
    onError: refusedKey,
    onSuccess: (_data, _variables, _context, mutation) =>
      mutation.meta?.touches ? readAgain(mutation.meta.touches) : undefined,
  }),
});

/**
 * Reads what a change touched again, from after the change. A read still on its way may have been
 * answered before the change, and invalidating alone joins it when it is the query's first (TanStack
 * starts a new fetch over a running one only when the query has data): a number added while the
 * list was still loading never appeared. So the reads on their way are cancelled (their answers
 * dropped), then the queries are read again.
 */
async function readAgain(queryKey: readonly unknown[]): Promise<void> {
  await queryClient.cancelQueries({ queryKey });
  await queryClient.invalidateQueries({ queryKey });
}

export const ConnectionContext = createContext<Connection | null>(null);

export function useConnection(): Connection {
  const connection = useContext(ConnectionContext);
  if (!connection) throw new Error('Not signed in');
  return connection;
}

export const useApi = (): Api => useConnection().api;

/** A file the API serves behind the key (a CSV report), saved by the browser under `name`. */
export async function download(connection: Connection, path: string, name: string): Promise<void> {
  const response = await fetch(`${connection.baseUrl}${path}`, { headers: { 'X-API-Key': connection.key } });
  if (!response.ok) throw new Error(detailOf(await response.json().catch(() => undefined), response.status));
  const link = document.createElement('a');
  link.href = URL.createObjectURL(await response.blob());
  link.download = name;
  link.click();
  URL.revokeObjectURL(link.href);
}

/** A document's plain text, read by the API (PDF, DOCX, TXT or MD): for a knowledge document or a call script. */
export async function extractText(api: Api, file: File, purpose: 'knowledge' | 'script'): Promise<string> {
  const form = new FormData();
  form.append('file', file);
  const extracted = await answer(
    api.POST('/agent-templates/extract-text', {
      params: { query: { purpose } },
      body: form as unknown as Schemas['ExtractTextUpload'],
      bodySerializer: (body) => body as unknown as FormData,
    }),
  );
  return extracted.text;
}

/** Uploads the scan of a subscriber's identity document (PDF, JPEG or PNG) for a regulated number's review: its id. */
export async function uploadNumberDocument(api: Api, file: File): Promise<number> {
  const form = new FormData();
  form.append('file', file);
  const uploaded = await answer(
    api.POST('/phone-numbers/documents', {
      body: form as unknown as Schemas['NumberDocumentUpload'],
      bodySerializer: (body) => body as unknown as FormData,
    }),
  );
  return uploaded.id;
}
