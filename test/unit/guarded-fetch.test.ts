import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyAddress, mayConnectTo, type AddressRange } from '../../shared/domain/address-ranges.ts';
import {
  assertFetchableUrl,
  createGuardedFetch,
  OutboundRequestError,
  type Resolver,
} from '../../shared/net/guarded-fetch.ts';

/**
 * No test here connects to anything but loopback: names resolve through a stubbed resolver, and a
 * refused address is refused before any connection is attempted.
 */
describe('classifyAddress (every address form)', () => {
  it.each<[string, AddressRange, string?]>([
    ['8.8.8.8', 'public'],
    ['93.184.216.34', 'public'],
    ['0.0.0.0', 'this-network'],
    ['0.1.2.3', 'this-network'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['100.64.0.1', 'shared-cgnat'],
    ['100.127.255.254', 'shared-cgnat'],
    ['100.128.0.1', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', 'public'],
    ['192.0.0.8', 'ietf-protocol'],
    ['192.0.2.1', 'documentation'],
    ['192.88.99.1', '6to4-relay'],
    ['192.168.1.1', 'private'],
    ['198.18.0.1', 'benchmarking'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    ['2606:4700:4700::1111', 'public'],
    ['2a00:1450:4001:82a::200e', 'public'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['::ffff:127.0.0.1', 'ipv4-mapped', '127.0.0.1'],
    ['::ffff:7f00:1', 'ipv4-mapped', '127.0.0.1'],
    ['::ffff:8.8.8.8', 'ipv4-mapped', '8.8.8.8'],
    ['::ffff:169.254.169.254', 'ipv4-mapped', '169.254.169.254'],
    ['::ffff:0:10.0.0.1', 'ipv4-translated', '10.0.0.1'],
    ['::10.0.0.1', 'ipv4-compatible', '10.0.0.1'],
    ['::7f00:1', 'ipv4-compatible', '127.0.0.1'],
    ['64:ff9b::a9fe:a9fe', 'nat64', '169.254.169.254'],
    ['64:ff9b::10.0.0.1', 'nat64', '10.0.0.1'],
    ['64:ff9b::8.8.8.8', 'nat64', '8.8.8.8'],
    ['64:ff9b:1::1', 'nat64'],
    ['100::1', 'discard'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'teredo', '127.0.0.1'],
    ['2001:2::1', 'benchmarking'],
    ['2001:10::1', 'orchid'],
    ['2001:20::1', 'orchid'],
    ['2001:1::1', 'ietf-protocol'],
    ['2001:db8::1', 'documentation'],
    ['2002:7f00:1::', '6to4', '127.0.0.1'],
    ['2002:a9fe:a9fe::1', '6to4', '169.254.169.254'],
    ['2002:0808:0808::1', '6to4', '8.8.8.8'],
    ['3fff::1', 'documentation'],
    ['5f00::1', 'srv6'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456:789a::1', 'unique-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf::1', 'link-local'],
    ['fec0::1', 'site-local'],
    ['feff::1', 'site-local'],
    ['ff02::1', 'multicast'],
    ['4000::1', 'reserved'],
    ['1::1', 'reserved'],
    ['example.com', 'invalid'],
    ['127.1', 'invalid'],
    ['', 'invalid'],
  ])('%s → %s %s', (address, range, embeddedIPv4) => {
    const result = classifyAddress(address);
    expect(result.range).toBe(range);
    expect(result.embeddedIPv4).toBe(embeddedIPv4);
  });

  it.each([
    ['8.8.8.8', false, true],
    ['2606:4700:4700::1111', false, true],
    ['127.0.0.1', false, false],
    ['127.0.0.1', true, true],
    ['::1', true, true],
    ['::ffff:127.0.0.1', true, false],
    ['10.0.0.1', true, false],
    ['169.254.169.254', true, false],
    ['not-an-ip', true, false],
  ])('mayConnectTo(%s, allowLoopback %s) → %s', (address, allowLoopback, expected) => {
    expect(mayConnectTo(address, allowLoopback)).toBe(expected);
  });
});

/** Names of the tests' own world; anything unknown does not resolve. */
function stubResolver(names: Record<string, string[]>): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolve = async (hostname: string) => {
    calls.push(hostname);
    const addresses = names[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolve, { calls });
}

async function refusedWith(
  promise: Promise<unknown>,
  reason: OutboundRequestError['reason'],
): Promise<OutboundRequestError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(OutboundRequestError);
  expect((error as OutboundRequestError).reason).toBe(reason);
  return error as OutboundRequestError;
}

describe('guarded fetch', () => {
  let server: Server;
  let port: number;
  const routes: Record<string, (request: IncomingMessage, response: ServerResponse) => void> = {};

  beforeAll(async () => {
    server = createServer((request, response) => {
      const route = routes[new URL(request.url!, 'http://x').pathname];
      if (route) route(request, response);
      else response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    const redirect =
      (location: string, status = 302) =>
      (_request: IncomingMessage, response: ServerResponse) =>
        response.writeHead(status, { location }).end();
    routes['/ok'] = (request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () =>
        response
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ method: request.method, body, authorization: request.headers.authorization ?? null })),
      );
    };
    routes['/to-metadata'] = redirect('http://169.254.169.254/latest/meta-data/');
    routes['/to-metadata-v6'] = redirect('http://[::ffff:169.254.169.254]/latest/meta-data/');
    routes['/to-internal-name'] = redirect(`http://internal.test:${port}/ok`);
    routes['/to-loopback-name'] = redirect(`http://feed.test:${port}/ok`, 307);
    routes['/see-other'] = redirect('/ok', 303);
    routes['/loop'] = redirect('/loop');
    routes['/to-file'] = redirect('file:///etc/passwd');
    routes['/huge'] = (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'a');
      let sent = 0;
      const write = () => {
        let flowing = true;
        while (sent < 40 && flowing) {
          sent += 1;
          flowing = response.write(chunk);
        }
        if (sent >= 40) response.end();
        else response.once('drain', write);
      };
      write();
    };
    routes['/declared-huge'] = (_request, response) =>
      response.writeHead(200, { 'content-length': String(10 * 1024 * 1024) }).end();
    routes['/slow'] = (_request, response) => {
      response.writeHead(200);
      response.write('partial');
      // never ends: the time cap must cut it
    };
    routes['/v1/chat/completions'] = (_request, response) =>
      response.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: 'c1',
          object: 'chat.completion',
          created: 0,
          model: 'm',
          choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'hello' } }],
        }),
      );
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const names = () =>
    stubResolver({
      'feed.test': ['127.0.0.1'],
      'model.test': ['127.0.0.1'],
      'internal.test': ['10.0.0.7'],
      'mixed.test': ['127.0.0.1', '10.0.0.7'],
      'mapped.test': ['::ffff:127.0.0.1'],
      'nat64.test': ['64:ff9b::a9fe:a9fe'],
    });
  const local = (resolve = names(), extra = {}) => createGuardedFetch({ allowLoopback: true, resolve, ...extra });

  it('fetches from loopback when the configuration allows it, resolving once, at connect time', async () => {
    const resolve = names();
    const response = await local(resolve)(`http://feed.test:${port}/ok`, { method: 'POST', body: 'hi' });
    expect(await response.json()).toEqual({ method: 'POST', body: 'hi', authorization: null });
    // One resolution, the connection's own: nothing resolved it before to "check" it.
    expect(resolve.calls).toEqual(['feed.test']);
  });

  it('takes a Request as fetch does', async () => {
    const response = await local()(
      new Request(`http://feed.test:${port}/ok`, {
        method: 'PUT',
        body: 'from a request',
        headers: { authorization: 'Bearer x' },
      }),
    );
    expect(await response.json()).toEqual({ method: 'PUT', body: 'from a request', authorization: 'Bearer x' });
  });

  it('refuses loopback without the explicit allowance, before connecting', async () => {
    const resolve = names();
    await refusedWith(createGuardedFetch({ allowLoopback: false, resolve })(`https://feed.test:${port}/ok`), 'refused');
    await refusedWith(createGuardedFetch({ allowLoopback: false, resolve })(`https://127.0.0.1:${port}/ok`), 'refused');
    await refusedWith(createGuardedFetch({ allowLoopback: false, resolve })(`https://[::1]:${port}/ok`), 'refused');
    // http is refused outright where only https is allowed
    await refusedWith(createGuardedFetch({ allowLoopback: false, resolve })(`http://feed.test:${port}/ok`), 'refused');
  });

  it.each([
    ['a private name', 'http://internal.test/ok', 'private'],
    ['a name with one private address among others', 'http://mixed.test/ok', 'private'],
    ['an IPv4-mapped loopback name', 'http://mapped.test/ok', 'ipv4-mapped'],
    ['a NAT64 name', 'http://nat64.test/ok', 'nat64'],
    ['a metadata literal', 'http://169.254.169.254/latest/meta-data/', 'link-local'],
    ['a decimal IPv4 literal', 'http://2852039166/', 'link-local'],
    ['an IPv6 unique-local literal', 'http://[fd00::1]/', 'unique-local'],
    ['an IPv6 site-local literal', 'http://[fec0::1]/', 'site-local'],
    ['a 6to4 literal', 'http://[2002:a9fe:a9fe::]/', '6to4'],
  ])('refuses %s even with the loopback allowance', async (_name, url, range) => {
    const error = await refusedWith(local()(url), 'refused');
    expect(error.message).toContain(range);
  });

  it('checks every redirect hop and refuses a redirect to a forbidden address', async () => {
    await refusedWith(local()(`http://feed.test:${port}/to-metadata`), 'refused');
    await refusedWith(local()(`http://feed.test:${port}/to-metadata-v6`), 'refused');
    const resolve = names();
    await refusedWith(local(resolve)(`http://feed.test:${port}/to-internal-name`), 'refused');
    expect(resolve.calls).toEqual(['feed.test', 'internal.test']);
    await refusedWith(local()(`http://feed.test:${port}/to-file`), 'refused');
  });

  it('follows allowed redirects as fetch does, up to the limit', async () => {
    const resolve = names();
    const kept = await local(resolve)(`http://127.0.0.1:${port}/to-loopback-name`, {
      method: 'POST',
      body: 'again',
      headers: { authorization: 'Bearer secret' },
    });
    // 307 keeps method and body; another origin does not get the credentials.
    expect(await kept.json()).toEqual({ method: 'POST', body: 'again', authorization: null });
    const seeOther = await local()(`http://feed.test:${port}/see-other`, { method: 'POST', body: 'x' });
    expect(await seeOther.json()).toMatchObject({ method: 'GET', body: '' });
    await refusedWith(local()(`http://feed.test:${port}/loop`), 'redirects');
    const manual = await local()(`http://feed.test:${port}/to-metadata`, { redirect: 'manual' });
    expect(manual.status).toBe(302);
  });

  it('caps the response size, declared or streamed', async () => {
    await refusedWith(
      local(names(), { maxResponseBytes: 1024 * 1024 })(`http://feed.test:${port}/declared-huge`),
      'too_large',
    );
    const response = await local(names(), { maxResponseBytes: 1024 * 1024 })(`http://feed.test:${port}/huge`);
    await refusedWith(response.text(), 'too_large');
    const whole = await local(names(), { maxResponseBytes: 4 * 1024 * 1024 })(`http://feed.test:${port}/huge`);
    expect((await whole.text()).length).toBe(40 * 64 * 1024);
  });

  it('caps the time of the whole exchange, body included', async () => {
    const started = Date.now();
    const response = await local(names(), { timeoutMs: 300 })(`http://feed.test:${port}/slow`);
    await refusedWith(response.text(), 'timeout');
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('reports a name that does not resolve as unreachable', async () => {
    await refusedWith(local()('http://nowhere.test/'), 'unreachable');
  });

  it('serves as the fetch of the openai client, refusing what the guard refuses', async () => {
    const client = (host: string) =>
      new OpenAI({ apiKey: 'sk-test', baseURL: `http://${host}:${port}/v1`, fetch: local(), maxRetries: 0 });
    const completion = await client('model.test').chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(completion.choices[0]?.message.content).toBe('hello');
    const error = await client('internal.test')
      .chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIConnectionError);
    expect((error as { cause?: unknown }).cause).toBeInstanceOf(OutboundRequestError);
  });
});

describe('guarded fetch over kept-alive connections', () => {
  it('sends a request again on a new connection when the server had closed the kept-alive one (its idle timeout)', async () => {
    // The first request on a connection is answered and the connection kept; a later one finds
    // it closed, as when the server's keep-alive timeout ends it just as the request goes out.
    const requests = new WeakMap<object, number>();
    const server = createServer((request, response) => {
      const count = (requests.get(request.socket) ?? 0) + 1;
      requests.set(request.socket, count);
      if (count > 1) return void request.socket.destroy();
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ count }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const guarded = createGuardedFetch({ allowLoopback: true });
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
      const first = await guarded(url, { method: 'POST', body: 'grant_type=refresh_token' });
      expect(await first.json()).toEqual({ count: 1 });
      const second = await guarded(url, { method: 'POST', body: 'grant_type=refresh_token' });
      expect(await second.json()).toEqual({ count: 1 });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('assertFetchableUrl (when a URL is stored)', () => {
  const resolve = stubResolver({
    'hooks.test': ['127.0.0.1'],
    'internal.test': ['10.0.0.7'],
    'public.test': ['2606:4700:4700::1111'],
  });
  it.each([
    ['https://public.test/hook', false, null],
    ['https://hooks.test/hook', false, 'refused'],
    ['http://hooks.test/hook', true, null],
    ['http://public.test/hook', false, 'refused'],
    ['https://internal.test/hook', true, 'refused'],
    ['https://[::1]/hook', false, 'refused'],
    ['https://0x7f.1/hook', false, 'refused'],
    ['https://nowhere.test/hook', false, null],
    ['ftp://public.test/file', true, 'refused'],
    ['not a url', true, 'refused'],
  ])('%s (loopback allowed: %s) → %s', async (url, allowLoopback, reason) => {
    const outcome = await assertFetchableUrl(url, { allowLoopback, resolve }).then(
      () => null,
      (error: OutboundRequestError) => error.reason,
    );
    expect(outcome).toBe(reason);
  });
});
