/** What the console's pages share without the app's libraries (the talk page is plain TypeScript). */

export const KEY_STORAGE = 'voice-agent-api-key';
export const BASE_URL_STORAGE = 'voice-agent-base-url';

/** The API's own message for an error body (`detail`, a string or FastAPI's list). */
export function detailOf(error: unknown, status: number): string {
  const detail = (error as { detail?: unknown } | undefined)?.detail;
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail))
    return detail.map((item: { loc?: unknown[]; msg?: string }) => `${item.loc?.at(-1) ?? ''}: ${item.msg}`).join('; ');
  return `The API answered ${status}`;
}
