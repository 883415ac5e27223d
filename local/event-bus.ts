import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { FUNCTION_GROUPS, type FunctionGroupName } from '../shared/api/function-groups.ts';
import { EVENT_RULES, matchesDetail } from '../shared/events/event-rules.ts';
import { EVENT_BUS_NAME } from '../shared/events/names.ts';
import { invokeLocal } from './lambda-runtime.ts';

interface PutEventsEntry {
  EventBusName?: string;
  Source?: string;
  DetailType?: string;
  Detail?: string;
  Resources?: string[];
}

/** EventBridge retries a failed asynchronous Lambda invocation; locally, a few quick retries. */
const TARGET_ATTEMPTS = 3;

export interface LocalEventBus {
  endpoint: string;
  /** Resolves when every event put so far has been handled by its targets (tests). */
  idle: () => Promise<void>;
  stop: () => Promise<void>;
}

/**
 * An EventBridge endpoint (the `PutEvents` action of the AWS JSON 1.1 protocol) for the SDK's
 * EventBridgeClient, applying the same rules as the CDK stack (EVENT_RULES) and invoking their
 * target functions in this process, asynchronously, as EventBridge does.
 */
export async function startLocalEventBus(options: { region: string }): Promise<LocalEventBus> {
  const inFlight = new Set<Promise<void>>();

  async function deliver(target: FunctionGroupName, event: Record<string, unknown>): Promise<void> {
    for (let attempt = 1; attempt <= TARGET_ATTEMPTS; attempt += 1) {
      try {
        await invokeLocal(target, FUNCTION_GROUPS[target], event);
        return;
      } catch (error) {
        if (attempt === TARGET_ATTEMPTS)
          console.error(`Local event bus: ${target} failed on event ${String(event.id)}`, error);
        else await sleep(200 * attempt);
      }
    }
  }

  function putEvents(entries: PutEventsEntry[]) {
    return {
      FailedEntryCount: 0,
      Entries: entries.map((entry) => {
        const id = randomUUID();
        const bus = entry.EventBusName ?? 'default';
        const event = {
          version: '0',
          id,
          'detail-type': entry.DetailType,
          source: entry.Source,
          account: '000000000000',
          time: new Date().toISOString(),
          region: options.region,
          resources: entry.Resources ?? [],
          detail: JSON.parse(entry.Detail ?? '{}') as unknown,
        };
        for (const rule of EVENT_RULES) {
          if (bus !== EVENT_BUS_NAME || rule.source !== entry.Source || rule.detailType !== entry.DetailType) continue;
          if (!matchesDetail(rule.detail, event.detail)) continue;
          const delivery = deliver(rule.target as FunctionGroupName, event);
          inFlight.add(delivery);
          void delivery.finally(() => inFlight.delete(delivery));
        }
        return { EventId: id };
      }),
    };
  }

  async function handle(request: IncomingMessage, response: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const action = String(request.headers['x-amz-target'] ?? '');
    response.setHeader('Content-Type', 'application/x-amz-json-1.1');
    if (action !== 'AWSEvents.PutEvents') {
      response
        .writeHead(400)
        .end(JSON.stringify({ __type: 'UnknownOperationException', message: `${action} is not supported locally` }));
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { Entries?: PutEventsEntry[] };
    response.writeHead(200).end(JSON.stringify(putEvents(body.Entries ?? [])));
  }

  const server = createServer((request, response) => void handle(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    idle: async () => {
      while (inFlight.size) await Promise.allSettled([...inFlight]);
    },
    stop: async () => {
      await Promise.allSettled([...inFlight]);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
