import type Telnyx from 'telnyx';
import { telnyxOrderVerdict, telnyxRequirementValue } from '../domain/regulatory-review.ts';
import { ProviderError, type CallbackRequest, type RegulatoryReview } from './adapter.ts';

interface TelnyxEvent {
  data?: { event_type?: string; payload?: Record<string, unknown> };
}

/**
 * Telnyx's regulatory requirements for a regulated number: the regulation's requirements, the
 * scan uploaded, a requirement group with a value for each, submitted, and the number order placed
 * with it on the Call Control connection; the order's status is the verdict.
 */
export function telnyxRegulatoryReview(
  client: Telnyx,
  connectionId: string,
  rethrow: (error: unknown, what: string) => never,
): RegulatoryReview {
  return {
    async submitForReview({ e164, country, type, endUser, document, customerReference }) {
      const phoneNumberType = type === 'toll_free' ? 'toll_free' : type;
      try {
        // What Telnyx's regulation for this country and type of number asks, requirement by requirement.
        const regulation = await client.regulatoryRequirements.retrieve({
          filter: { country_code: country, phone_number_type: phoneNumberType, action: 'ordering' },
        });
        const requirements = regulation.data?.[0]?.regulatory_requirements ?? [];
        const uploaded = await client.documents.uploadJson({
          document: {
            file: document.data.toString('base64'),
            filename: document.fileName,
            customer_reference: customerReference,
          },
        });
        const documentId = uploaded.data?.id;
        if (!documentId) throw new ProviderError('Telnyx answered the document upload without an id');
        const values = requirements.map((requirement) => ({
          requirement,
          value: telnyxRequirementValue(requirement, endUser, documentId),
        }));
        const unmet = values.find((each) => each.value === undefined);
        if (unmet)
          throw new ProviderError(
            `Telnyx requires "${unmet.requirement.name ?? unmet.requirement.id}" for ${country} ${type} numbers, which the platform does not collect`,
          );
        const group = await client.requirementGroups.create({
          action: 'ordering',
          country_code: country,
          phone_number_type: phoneNumberType,
          customer_reference: customerReference,
          regulatory_requirements: values.map(({ requirement, value }) => ({
            requirement_id: requirement.id,
            field_value: value,
          })),
        });
        if (!group.id) throw new ProviderError('Telnyx answered the requirement group without an id');
        await client.requirementGroups.submitForApproval(group.id);
        // The order waits for the group's approval: Telnyx completes it (success) or fails it.
        const order = await client.numberOrders.create({
          connection_id: connectionId,
          customer_reference: customerReference,
          phone_numbers: [{ phone_number: e164, requirement_group_id: group.id }],
        });
        if (!order.data?.id) throw new ProviderError('Telnyx answered the number order without an id');
        return { reference: order.data.id };
      } catch (error) {
        if (error instanceof ProviderError) throw error;
        rethrow(error, 'regulated number order');
      }
    },

    async reviewStatus(orderId) {
      try {
        const order = (await client.numberOrders.retrieve(orderId)).data;
        const ordered = order?.phone_numbers?.[0];
        if (order?.status === 'success' && ordered?.id)
          return { decision: 'approve', bought: { providerNumberId: ordered.id, capabilities: null } };
        if (order?.status !== 'failure') return telnyxOrderVerdict(order?.status);
        // Which requirements Telnyx declined, by their names in the regulation.
        const [group] = order.customer_reference
          ? await client.requirementGroups.list({ filter: { customer_reference: order.customer_reference } })
          : [];
        const declined = (group?.regulatory_requirements ?? []).filter((each) => each.status === 'declined');
        const regulation = declined.length
          ? await client.regulatoryRequirements.retrieve({ filter: { requirement_group_id: group!.id } })
          : undefined;
        const names = new Map(
          (regulation?.data?.[0]?.regulatory_requirements ?? []).map((each) => [each.id, each.name ?? each.id]),
        );
        return telnyxOrderVerdict(
          'failure',
          declined.map((each) => names.get(each.requirement_id) ?? each.requirement_id ?? 'a requirement'),
        );
      } catch (error) {
        rethrow(error, 'number order');
      }
    },

    // `number_order.complete` at the account's number-order webhook (Ed25519-signed like every event).
    parseReviewCallback({ rawBody }: CallbackRequest) {
      const event = JSON.parse(rawBody) as TelnyxEvent;
      const payload = event.data?.payload ?? {};
      if (event.data?.event_type !== 'number_order.complete' || typeof payload.id !== 'string') return undefined;
      const ordered = Array.isArray(payload.phone_numbers)
        ? (payload.phone_numbers[0] as { phone_number?: unknown } | undefined)
        : undefined;
      return {
        reference: payload.id,
        e164: typeof ordered?.phone_number === 'string' ? ordered.phone_number : undefined,
      };
    },
  };
}
