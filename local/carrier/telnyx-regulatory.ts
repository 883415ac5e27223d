import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { sendJson } from './http.ts';
import type { NumberInventory } from './number-inventory.ts';
import { localReviewVerdict } from './regulatory-reviewers.ts';
import { telnyxError } from './telnyx-numbers.ts';

/** Telnyx's regulation for Polish mobile numbers as `GET /v2/regulatory_requirements` lists it here. */
const POLISH_MOBILE_REQUIREMENTS = [
  { id: '5b8d3e0a-1d7b-4c1e-9b6f-0a1f3c2e4d01', name: 'Full name or company name', field_type: 'textual' },
  { id: '5b8d3e0a-1d7b-4c1e-9b6f-0a1f3c2e4d02', name: 'Identification number', field_type: 'textual' },
  { id: '5b8d3e0a-1d7b-4c1e-9b6f-0a1f3c2e4d03', name: 'Address', field_type: 'address' },
  { id: '5b8d3e0a-1d7b-4c1e-9b6f-0a1f3c2e4d04', name: 'Proof of identity', field_type: 'document' },
];

interface RequirementGroup {
  id: string;
  owner: string;
  action: string;
  country_code: string;
  phone_number_type: string;
  customer_reference?: string;
  status: 'unapproved' | 'pending-approval' | 'approved' | 'declined';
  regulatory_requirements: { requirement_id: string; field_value: string; field_type: string; status: string }[];
  created_at: string;
  updated_at: string;
}

interface NumberOrder {
  id: string;
  owner: string;
  status: 'pending' | 'success' | 'failure';
  customer_reference?: string;
  connection_id?: string;
  phone_numbers: { id: string; phone_number: string; requirement_group_id: string; status: string }[];
  created_at: string;
}

/**
 * The local Telnyx's regulatory resources: `GET /v2/regulatory_requirements`, `POST /v2/documents`
 * (the JSON upload, base64 `file`), requirement groups (`POST`, `GET` by id or
 * `filter[customer_reference]`, `POST …/submit_for_approval`) and number orders placed with a
 * `requirement_group_id`, which stay `pending` until the group is decided. The local reviewers
 * (regulatory-reviewers.ts) decide a submitted group `reviewDelayMs` later: the group becomes
 * `approved` or `declined` (the requirement whose value they refused `declined`), its orders
 * `success` (the number is the account's) or `failure`, and `number_order.complete` goes to the
 * accounts' number-order webhook (the portal's notification setting), signed.
 */
export function telnyxRegulatory(
  numbers: NumberInventory,
  review: {
    delayMs: number;
    notify: (connectionId: string, eventType: string, payload: Record<string, unknown>) => Promise<unknown>;
  },
) {
  const documents = new Map<string, { owner: string; filename: string }>();
  const groups = new Map<string, RequirementGroup>();
  const orders = new Map<string, NumberOrder>();
  const timers = new Set<NodeJS.Timeout>();

  const requirementsOf = (country: string | null, type: string | null) =>
    country === 'PL' && type === 'mobile' ? POLISH_MOBILE_REQUIREMENTS : [];

  function decide(group: RequirementGroup): void {
    const values = group.regulatory_requirements.map((each) => each.field_value);
    const verdict = localReviewVerdict({
      values,
      hasDocument: group.regulatory_requirements.some(
        (each) => each.field_type === 'document' && documents.get(each.field_value)?.owner === group.owner,
      ),
    });
    if (verdict.status === 'held') return;
    group.status = verdict.status === 'approved' ? 'approved' : 'declined';
    group.updated_at = new Date().toISOString();
    for (const requirement of group.regulatory_requirements) {
      const refused =
        verdict.status === 'rejected' &&
        (/^reject/i.test(requirement.field_value) ||
          (requirement.field_type === 'document' && !documents.has(requirement.field_value)));
      requirement.status = refused ? 'declined' : 'approved';
    }
    for (const order of orders.values()) {
      if (order.status !== 'pending' || !order.phone_numbers.some((each) => each.requirement_group_id === group.id))
        continue;
      const sold =
        group.status === 'approved' &&
        order.phone_numbers.every((each) => numbers.sell(order.owner, each.phone_number, each.id));
      order.status = sold ? 'success' : 'failure';
      for (const each of order.phone_numbers) each.status = order.status;
      if (!(verdict.status === 'approved' && verdict.silent))
        void review.notify(order.owner, 'number_order.complete', orderResource(order)).catch(() => undefined);
    }
  }

  const orderResource = ({ owner: _owner, ...order }: NumberOrder) => ({
    ...order,
    record_type: 'number_order',
    phone_numbers_count: order.phone_numbers.length,
    requirements_met: order.status === 'success',
    phone_numbers: order.phone_numbers.map((each) => ({ ...each, record_type: 'number_order_phone_number' })),
  });
  const groupResource = ({ owner: _owner, ...group }: RequirementGroup) => ({
    ...group,
    record_type: 'requirement_group',
  });

  /** Handles the request if it is one of these resources (false otherwise). */
  function resource(
    connectionId: string,
    request: { method: string | undefined; path: string; query: URLSearchParams; body: Record<string, unknown> },
    response: ServerResponse,
  ): boolean {
    const { method, path, query, body } = request;
    if (path === '/v2/regulatory_requirements' && method === 'GET') {
      const group = groups.get(query.get('filter[requirement_group_id]') ?? '');
      const country = group?.country_code ?? query.get('filter[country_code]');
      const type = group?.phone_number_type ?? query.get('filter[phone_number_type]');
      const requirements = requirementsOf(country, type);
      sendJson(response, 200, {
        data: requirements.length
          ? [
              {
                action: 'ordering',
                country_code: country,
                phone_number_type: type,
                regulatory_requirements: requirements,
              },
            ]
          : [],
      });
      return true;
    }
    if (path === '/v2/documents' && method === 'POST') {
      const file = typeof body.file === 'string' ? Buffer.from(body.file, 'base64') : Buffer.alloc(0);
      if (!file.length) {
        telnyxError(response, 422, '10015', 'Invalid document', 'Give the file (base64) or its url');
        return true;
      }
      const id = randomUUID();
      const filename = String(body.filename ?? 'document');
      documents.set(id, { owner: connectionId, filename });
      sendJson(response, 200, {
        data: {
          id,
          record_type: 'document',
          filename,
          status: 'pending',
          size: { unit: 'bytes', amount: file.length },
          customer_reference: body.customer_reference ?? null,
          created_at: new Date().toISOString(),
        },
      });
      return true;
    }
    if (path === '/v2/requirement_groups' && method === 'POST') {
      const wanted = requirementsOf(String(body.country_code ?? ''), String(body.phone_number_type ?? ''));
      const given = Array.isArray(body.regulatory_requirements)
        ? (body.regulatory_requirements as { requirement_id?: string; field_value?: string }[])
        : [];
      const now = new Date().toISOString();
      const group: RequirementGroup = {
        id: randomUUID(),
        owner: connectionId,
        action: String(body.action ?? 'ordering'),
        country_code: String(body.country_code ?? ''),
        phone_number_type: String(body.phone_number_type ?? ''),
        customer_reference: typeof body.customer_reference === 'string' ? body.customer_reference : undefined,
        status: 'unapproved',
        regulatory_requirements: given.flatMap((each) => {
          const requirement = wanted.find((known) => known.id === each.requirement_id);
          return requirement
            ? [
                {
                  requirement_id: requirement.id,
                  field_value: String(each.field_value ?? ''),
                  field_type: requirement.field_type,
                  status: 'pending-approval',
                },
              ]
            : [];
        }),
        created_at: now,
        updated_at: now,
      };
      groups.set(group.id, group);
      sendJson(response, 200, groupResource(group));
      return true;
    }
    if (path === '/v2/requirement_groups' && method === 'GET') {
      const reference = query.get('filter[customer_reference]');
      sendJson(
        response,
        200,
        [...groups.values()]
          .filter((group) => group.owner === connectionId && (!reference || group.customer_reference === reference))
          .map(groupResource),
      );
      return true;
    }
    const groupPath = /^\/v2\/requirement_groups\/([^/]+)(\/submit_for_approval)?$/.exec(path);
    if (groupPath) {
      const group = groups.get(groupPath[1]!);
      if (!group || group.owner !== connectionId) {
        telnyxError(response, 404, '10005', 'Resource not found');
        return true;
      }
      if (groupPath[2] && method === 'POST' && group.status === 'unapproved') {
        group.status = 'pending-approval';
        const timer = setTimeout(() => {
          timers.delete(timer);
          decide(group);
        }, review.delayMs);
        timers.add(timer);
      }
      sendJson(response, 200, groupResource(group));
      return true;
    }
    if (path === '/v2/number_orders' && method === 'POST') {
      const wanted = Array.isArray(body.phone_numbers)
        ? (body.phone_numbers as { phone_number?: string; requirement_group_id?: string }[])
        : [];
      // Orders without a requirement group are the inventory's (telnyx-numbers.ts).
      if (!wanted.some((each) => each.requirement_group_id)) return false;
      if (
        wanted.some(
          (each) =>
            !numbers.offer(String(each.phone_number)) ||
            groups.get(String(each.requirement_group_id))?.owner !== connectionId,
        )
      ) {
        telnyxError(response, 422, '10015', 'Number not available or requirement group unknown');
        return true;
      }
      const order: NumberOrder = {
        id: randomUUID(),
        owner: connectionId,
        status: 'pending',
        customer_reference: typeof body.customer_reference === 'string' ? body.customer_reference : undefined,
        connection_id: typeof body.connection_id === 'string' ? body.connection_id : undefined,
        phone_numbers: wanted.map((each) => ({
          id: randomUUID(),
          phone_number: String(each.phone_number),
          requirement_group_id: String(each.requirement_group_id),
          status: 'pending',
        })),
        created_at: new Date().toISOString(),
      };
      orders.set(order.id, order);
      sendJson(response, 200, { data: orderResource(order) });
      return true;
    }
    const orderPath = /^\/v2\/number_orders\/([^/]+)$/.exec(path);
    if (orderPath && method === 'GET') {
      const order = orders.get(orderPath[1]!);
      if (!order || order.owner !== connectionId) telnyxError(response, 404, '10005', 'Resource not found');
      else sendJson(response, 200, { data: orderResource(order) });
      return true;
    }
    return false;
  }

  const stop = () => {
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
  };

  return { resource, stop };
}
