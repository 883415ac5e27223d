import { lookup as dnsLookup } from 'node:dns/promises';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import { outboundAllowsLoopback } from '../config.ts';
import { classifyAddress, mayConnectTo } from '../domain/address-ranges.ts';

export { classifyAddress, mayConnectTo, type AddressClass, type AddressRange } from '../domain/address-ranges.ts';

/**
 * The one way the platform fetches a URL that a customer chose or can influence (webhooks,
 * calendar feeds, websites, the organization's model API, agent tools, spreadsheet provider):
 * a `fetch`-compatible function (usable as the `fetch` option of the `openai` client) that
 *
 * - checks the address actually connected to, inside the connection: Node's own HTTP client
 *   resolves names through the guard's DNS `lookup`, which refuses what it resolves, and IP
 *   literals (which Node connects to without a lookup) are refused before the request; there is
 *   no gap between a check and a second resolution (DNS rebinding);
 * - follows redirects itself (at most `maxRedirects`), every hop through the same connection check;
 * - refuses everything but public addresses (shared/domain/address-ranges.ts), loopback only when
 *   the local stack or the tests set `OUTBOUND_ALLOW_LOOPBACK` (plain http is then allowed too);
 * - caps the time of the whole exchange (body included) and the size of the response body.
 */
export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export type OutboundFailure = 'refused' | 'timeout' | 'too_large' | 'redirects' | 'unreachable';

export class OutboundRequestError extends Error {
  override readonly name = 'OutboundRequestError';
  constructor(
    readonly reason: OutboundFailure,
    message: string,
  ) {
    super(message);
  }
}

export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

export interface GuardOptions {
  /** The whole exchange, body included. */
  timeoutMs?: number;
  maxResponseBytes?: number;
  maxRedirects?: number;
  /** Defaults to the configuration (`OUTBOUND_ALLOW_LOOPBACK`); tests set it explicitly. */
  allowLoopback?: boolean;
  /** DNS resolution; tests stub it, so no test resolves or connects to anything but loopback. */
  resolve?: Resolver;
}

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 5 * 1024 * 1024;
export const DEFAULT_MAX_REDIRECTS = 5;

const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function refusal(host: string, address: string): OutboundRequestError {
  const { range, embeddedIPv4 } = classifyAddress(address);
  const carried = embeddedIPv4 ? `, carrying ${embeddedIPv4}` : '';
  const what = host === address ? address : `${host} resolves to ${address}, which`;
  return new OutboundRequestError(
    'refused',
    `${what} is not a public address (${range}${carried}); only public addresses may be reached`,
  );
}

function checkingLookup(resolve: Resolver, allowLoopback: () => boolean): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const wanted =
          options.family === 4 || options.family === 6
            ? addresses.filter((entry) => entry.family === options.family)
            : addresses;
        const forbidden = addresses.find((entry) => !mayConnectTo(entry.address, allowLoopback()));
        if (forbidden) return callback(refusal(hostname, forbidden.address), '', 0);
        if (!wanted.length)
          return callback(Object.assign(new Error(`${hostname} does not resolve`), { code: 'ENOTFOUND' }), '', 0);
        if (options.all)
          return (callback as unknown as (error: null, addresses: { address: string; family: number }[]) => void)(
            null,
            wanted,
          );
        return callback(null, wanted[0]!.address, wanted[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}

/**
 * One exchange over Node's HTTP client with the checking `lookup`. Node's `fetch` would need a
 * bundled copy of undici (~0.7 MB per function) to take a custom lookup; the platform's Request
 * and Response classes give the same body handling and result type.
 */
interface Transport {
  lookup: LookupFunction;
  agents: { 'http:': HttpAgent; 'https:': HttpsAgent };
  allowLoopback: () => boolean;
}

const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

async function exchange(
  transport: Transport,
  url: URL,
  method: string,
  headers: Headers,
  body: RequestInit['body'],
  signal: AbortSignal,
): Promise<Response> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // Node connects to an IP literal without a lookup: it is checked here.
  if (isIP(host) && !mayConnectTo(host, transport.allowLoopback())) throw refusal(host, host);
  // The platform serialises any BodyInit (and sets its content type) as fetch would.
  const outgoing = new Request(url, { method, headers, body, signal });
  const payload = body === null ? undefined : Buffer.from(await outgoing.arrayBuffer());
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const attempt = () =>
    new Promise<IncomingMessage>((resolve, reject) => {
      const request = send(url, {
        method,
        headers: {
          ...Object.fromEntries(outgoing.headers),
          ...(payload ? { 'content-length': String(payload.length) } : {}),
        },
        agent: transport.agents[url.protocol as 'http:' | 'https:'],
        lookup: transport.lookup,
        signal,
      });
      request
        .once('response', resolve)
        .once('error', (error) => reject(Object.assign(error, { reused: request.reusedSocket })));
      request.end(payload);
    });
  let response: IncomingMessage | undefined;
  for (let stale = 0; !response; stale += 1) {
    try {
      response = await attempt();
    } catch (error) {
      // A kept-alive connection the server closed (its idle timeout) as this request went out on
      // it: the request never reached the server, so it goes again, on another connection (Node's
      // documented use of `request.reusedSocket`). A connection used again every few seconds, as
      // a campaign's source re-sync does, meets that moment often.
      if (!closedWhileIdle(error) || stale >= MAX_STALE_CONNECTIONS) throw error;
    }
  }
  const responseHeaders = new Headers();
  for (const [name, value] of Object.entries(response.headers))
    for (const one of [value ?? []].flat()) responseHeaders.append(name, one);
  const status = response.statusCode ?? 502;
  if (NULL_BODY_STATUSES.has(status) || method === 'HEAD') {
    response.resume();
    return new Response(null, { status, statusText: response.statusMessage, headers: responseHeaders });
  }
  return new Response(Readable.toWeb(response) as ReadableStream<Uint8Array>, {
    status,
    statusText: response.statusMessage,
    headers: responseHeaders,
  });
}

/** Kept-alive connections found closed in a row before a request gives up (each is dropped from the pool). */
const MAX_STALE_CONNECTIONS = 4;

/** The server had closed the reused connection: reset or broken before any answer. */
const closedWhileIdle = (error: unknown): boolean => {
  const { reused, code } = error as { reused?: boolean; code?: string };
  return reused === true && (code === 'ECONNRESET' || code === 'EPIPE');
};

function checkScheme(url: URL, allowLoopback: boolean): void {
  if (url.protocol === 'https:' || (allowLoopback && url.protocol === 'http:')) return;
  throw new OutboundRequestError('refused', `Only https URLs may be fetched, not ${url.protocol.replace(/:$/, '')}`);
}

function failure(error: unknown, url: URL, timeout: AbortSignal, timeoutMs: number): unknown {
  if (error instanceof OutboundRequestError) return error;
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof OutboundRequestError) return cause;
  if (timeout.aborted)
    return new OutboundRequestError('timeout', `${url.host} did not answer within ${timeoutMs / 1000} s`);
  if ((error as Error).name === 'AbortError') return error; // the caller's own signal
  const detail = cause instanceof Error ? cause.message : (error as Error).message;
  return new OutboundRequestError('unreachable', `${url.host} could not be reached: ${detail}`);
}

/** The response with a body that errors once it grows past the cap (and maps late failures). */
function capped(response: Response, url: URL, limit: number, translate: (error: unknown) => unknown): Response {
  const tooLarge = () =>
    new OutboundRequestError('too_large', `The response of ${url.host} is larger than ${limit} bytes`);
  const init = { status: response.status, statusText: response.statusText, headers: response.headers };
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (declared > limit) {
    void response.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  if (!response.body || [204, 205, 304].includes(response.status)) return new Response(null, init);
  const reader = response.body.getReader();
  let received = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) return controller.close();
        received += value.byteLength;
        if (received > limit) {
          await reader.cancel().catch(() => undefined);
          return controller.error(tooLarge());
        }
        controller.enqueue(value);
      } catch (error) {
        controller.error(translate(error));
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return new Response(body, init);
}

/** A guarded fetch with its own caps; `guardedFetch` below is the default one. */
export function createGuardedFetch(options: GuardOptions = {}): FetchLike {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const allowLoopback = () => options.allowLoopback ?? outboundAllowsLoopback();
  const transport: Transport = {
    lookup: checkingLookup(options.resolve ?? systemResolver, allowLoopback),
    agents: { 'http:': new HttpAgent({ keepAlive: true }), 'https:': new HttpsAgent({ keepAlive: true }) },
    allowLoopback,
  };

  return async (input, requestInit = {}) => {
    let url = new URL(input instanceof Request ? input.url : String(input));
    const init: RequestInit =
      input instanceof Request
        ? {
            method: input.method,
            headers: input.headers,
            body: input.body ? await input.arrayBuffer() : null,
            signal: input.signal,
            redirect: input.redirect,
            ...requestInit,
          }
        : requestInit;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    const translate = (error: unknown) => failure(error, url, timeout, timeoutMs);
    let method = (init.method ?? 'GET').toUpperCase();
    let body = init.body ?? null;
    const headers = new Headers(init.headers);
    for (let redirects = 0; ; redirects += 1) {
      checkScheme(url, allowLoopback());
      let response: Response;
      try {
        response = await exchange(transport, url, method, headers, body, signal);
      } catch (error) {
        throw translate(error);
      }
      const location = response.headers.get('location');
      if (!REDIRECTS.has(response.status) || !location || init.redirect === 'manual')
        return capped(response, url, maxBytes, translate);
      await response.body?.cancel().catch(() => undefined);
      if (init.redirect === 'error')
        throw new OutboundRequestError('redirects', `${url.host} answered with a redirect`);
      if (redirects >= maxRedirects)
        throw new OutboundRequestError('redirects', `More than ${maxRedirects} redirects from ${url.host}`);
      const next = new URL(location, url);
      if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
        method = 'GET';
        body = null;
        for (const name of ['content-type', 'content-length']) headers.delete(name);
      } else if (
        body !== null &&
        typeof body !== 'string' &&
        !(body instanceof URLSearchParams) &&
        !(body instanceof Uint8Array) &&
        !(body instanceof ArrayBuffer)
      ) {
        throw new OutboundRequestError('redirects', `${url.host} redirected a request whose body cannot be sent again`);
      }
      // As browsers do: credentials are not handed to another origin.
      if (next.origin !== url.origin)
        for (const name of ['authorization', 'cookie', 'proxy-authorization']) headers.delete(name);
      url = next;
    }
  };
}

/** 10 s, 5 MiB, 5 redirects. */
export const guardedFetch: FetchLike = createGuardedFetch();

/**
 * Checks a URL a customer gives before storing it (webhooks, tools, feeds, model API): the
 * scheme, an address literal, and the addresses a name resolves to now. A name that does not
 * resolve yet is accepted: the connection check applies at every fetch, so whatever the name
 * resolves to later is checked then.
 */
export async function assertFetchableUrl(
  url: string,
  options: Pick<GuardOptions, 'allowLoopback' | 'resolve'> = {},
): Promise<void> {
  const allowLoopback = options.allowLoopback ?? outboundAllowsLoopback();
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new OutboundRequestError('refused', `${url} is not a URL`);
  }
  checkScheme(parsed, allowLoopback);
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) ? [{ address: host }] : await (options.resolve ?? systemResolver)(host).catch(() => []);
  const forbidden = addresses.find(({ address }) => !mayConnectTo(address, allowLoopback));
  if (forbidden) throw refusal(host, forbidden.address);
}
