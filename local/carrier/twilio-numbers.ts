import type { ServerResponse } from 'node:http';
import { sendJson } from './http.ts';
import type { NumberInventory } from './number-inventory.ts';
import { decidedAtOnce, localReviewVerdict } from './regulatory-reviewers.ts';
import { API_VERSION, twilioError, twilioSid } from './twilio-rest.ts';

/** A submitted regulatory item: an EndUser (IT…) or a SupportingDocument (RD…) with or without its file. */
interface ComplianceItem {
  sid: string;
  account_sid: string;
  attributes: Record<string, unknown>;
  hasFile: boolean;
}

interface Bundle {
  sid: string;
  account_sid: string;
  status: string;
  friendly_name: string | null;
  email: string | null;
  status_callback: string | null;
  items: string[];
  failure_reason: string | null;
}

/**
 * The local Twilio's number resources on the carrier's number inventory: AvailablePhoneNumbers,
 * IncomingPhoneNumbers (buy, list, release), and Regulatory Compliance: EndUsers,
 * SupportingDocuments (multipart with their `File`, as Twilio's upload host takes them), Bundles
 * and their ItemAssignments. A bundle submitted for review (`Status=pending-review`) is decided by
 * the local reviewers (regulatory-reviewers.ts) `reviewDelayMs` later: its status becomes
 * `twilio-approved` or `twilio-rejected`, and its StatusCallback gets a signed POST of
 * `AccountSid`, `BundleSid`, `Status` and `FailureReason`.
 */
export function twilioNumbers(
  numbers: NumberInventory,
  review: {
    delayMs: number;
    notify: (accountSid: string, url: string, params: Record<string, string>) => Promise<unknown>;
  },
) {
  const bundles = new Map<string, Bundle>();
  const items = new Map<string, ComplianceItem>();
  const timers = new Set<NodeJS.Timeout>();

  const bundleResource = (bundle: Bundle) => {
    const { items: _items, failure_reason: _reason, ...shown } = bundle;
    return { ...shown, regulation_sid: null, valid_until: null, url: `/v2/RegulatoryCompliance/Bundles/${bundle.sid}` };
  };

  function attributesOf(raw: string | null): Record<string, unknown> | undefined {
    if (!raw) return {};
    try {
      const parsed = JSON.parse(raw) as unknown;
      return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
        ? (parsed as Record<string, unknown>)
        : undefined;
    } catch {
      return undefined;
    }
  }

  const submittedValues = (bundle: Bundle) =>
    bundle.items.flatMap((sid) => items.get(sid) ?? []).flatMap((item) => Object.values(item.attributes).map(String));

  /** Decides the bundle; resolves once its callback (if any) is answered. */
  async function decide(bundle: Bundle): Promise<void> {
    const assigned = bundle.items.flatMap((sid) => items.get(sid) ?? []);
    const verdict = localReviewVerdict({
      values: submittedValues(bundle),
      hasDocument: assigned.some((item) => item.sid.startsWith('RD') && item.hasFile),
    });
    if (verdict.status === 'held') return;
    bundle.status = verdict.status === 'approved' ? 'twilio-approved' : 'twilio-rejected';
    bundle.failure_reason = verdict.status === 'rejected' ? verdict.reason : null;
    if (bundle.status_callback && !(verdict.status === 'approved' && verdict.silent))
      await review
        .notify(bundle.account_sid, bundle.status_callback, {
          AccountSid: bundle.account_sid,
          BundleSid: bundle.sid,
          Status: bundle.status,
          ...(bundle.failure_reason ? { FailureReason: bundle.failure_reason } : {}),
        })
        .catch(() => undefined);
  }

  /** `POST /v2/RegulatoryCompliance/SupportingDocuments` at the upload host: multipart, with the `File`. */
  async function supportingDocument(accountSid: string, form: FormData, response: ServerResponse): Promise<void> {
    const attributes = attributesOf(
      typeof form.get('Attributes') === 'string' ? (form.get('Attributes') as string) : null,
    );
    if (!form.get('FriendlyName') || !form.get('Type') || !attributes)
      return twilioError(response, 400, 22201, 'FriendlyName, Type and Attributes (a JSON object) are required');
    const file = form.get('File');
    const item = {
      sid: twilioSid('RD'),
      account_sid: accountSid,
      attributes,
      hasFile: file instanceof Blob && file.size > 0,
    };
    items.set(item.sid, item);
    return sendJson(response, 201, {
      sid: item.sid,
      account_sid: accountSid,
      friendly_name: form.get('FriendlyName'),
      type: form.get('Type'),
      mime_type: file instanceof Blob ? file.type : null,
      status: 'draft',
      attributes,
    });
  }

  /** `GET|POST /v2/RegulatoryCompliance/{Bundles,EndUsers}[/{BU…}[/ItemAssignments]]`. */
  async function compliance(
    accountSid: string,
    method: string | undefined,
    [collection, bundleSid, assignments]: (string | undefined)[],
    form: URLSearchParams,
    response: ServerResponse,
  ): Promise<void> {
    if (collection === 'EndUsers') {
      const attributes = attributesOf(form.get('Attributes'));
      if (!attributes) return twilioError(response, 400, 22201, 'Attributes must be a JSON object');
      const item = { sid: twilioSid('IT'), account_sid: accountSid, attributes, hasFile: false };
      items.set(item.sid, item);
      return sendJson(response, 201, {
        sid: item.sid,
        account_sid: accountSid,
        friendly_name: form.get('FriendlyName'),
        type: form.get('Type'),
        attributes,
      });
    }
    if (!bundleSid) {
      if (!form.get('Email') || !form.get('FriendlyName'))
        return twilioError(response, 400, 22204, 'Email and FriendlyName are required');
      const bundle: Bundle = {
        sid: twilioSid('BU'),
        account_sid: accountSid,
        status: 'draft',
        friendly_name: form.get('FriendlyName'),
        email: form.get('Email'),
        status_callback: form.get('StatusCallback'),
        items: [],
        failure_reason: null,
      };
      bundles.set(bundle.sid, bundle);
      return sendJson(response, 201, bundleResource(bundle));
    }
    const bundle = bundles.get(bundleSid);
    if (!bundle || bundle.account_sid !== accountSid) return twilioError(response, 404, 20404, 'Not found');
    if (method === 'GET') return sendJson(response, 200, bundleResource(bundle));
    if (assignments) {
      const objectSid = form.get('ObjectSid') ?? '';
      if (items.get(objectSid)?.account_sid !== accountSid)
        return twilioError(response, 400, 22214, `ObjectSid ${objectSid} is not an item of this account`);
      bundle.items.push(objectSid);
      return sendJson(response, 201, { sid: twilioSid('BV'), bundle_sid: bundleSid, object_sid: objectSid });
    }
    if (form.get('Status') === 'pending-review' && bundle.status === 'draft') {
      bundle.status = 'in-review';
      if (decidedAtOnce(submittedValues(bundle))) await decide(bundle);
      else {
        const timer = setTimeout(() => {
          timers.delete(timer);
          void decide(bundle);
        }, review.delayMs);
        timers.add(timer);
      }
    }
    return sendJson(response, 200, bundleResource(bundle));
  }

  const stop = () => {
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
  };

  /** An account's number resource (`resource` is the path after `/Accounts/{AC…}/`); false when it is none. */
  function accountResource(
    accountSid: string,
    resource: string,
    request: { method: string | undefined; query: URLSearchParams; form: URLSearchParams },
    response: ServerResponse,
  ): boolean {
    const { method, form } = request;
    const available = /^AvailablePhoneNumbers\/([A-Z]{2})\/(Local|Mobile|TollFree)\.json$/.exec(resource);
    if (available && method === 'GET') {
      const type = { Local: 'local', Mobile: 'mobile', TollFree: 'toll_free' }[
        available[2] as 'Local' | 'Mobile' | 'TollFree'
      ];
      sendJson(response, 200, {
        available_phone_numbers: numbers.forSale(available[1]!, type).map((number) => ({
          phone_number: number.phone_number,
          friendly_name: number.phone_number,
          iso_country: number.country_code,
          // Twilio's AvailablePhoneNumber spells them so (`SMS`, `MMS`), its IncomingPhoneNumber in lower case.
          capabilities: {
            voice: number.capabilities.includes('voice'),
            SMS: number.capabilities.includes('sms'),
            MMS: false,
            fax: false,
          },
          address_requirements: number.country_code === 'PL' && type === 'mobile' ? 'local' : 'none',
        })),
        uri: `/${API_VERSION}/Accounts/${accountSid}/${resource}`,
      });
      return true;
    }
    if (resource === 'IncomingPhoneNumbers.json' && method === 'GET') {
      const wanted = request.query.get('PhoneNumber');
      const owned = numbers.ownedBy(accountSid).filter((number) => !wanted || number.phone_number === wanted);
      sendJson(response, 200, {
        incoming_phone_numbers: owned.map((number) => ({
          sid: number.id,
          account_sid: accountSid,
          phone_number: number.phone_number,
          voice_url: number.voiceUrl,
          sms_url: number.smsUrl ?? null,
          capabilities: { voice: number.capabilities.includes('voice'), sms: number.capabilities.includes('sms') },
          status: 'in-use',
        })),
        page: 0,
        page_size: 50,
        first_page_uri: `/${API_VERSION}/Accounts/${accountSid}/IncomingPhoneNumbers.json?PageSize=50&Page=0`,
        next_page_uri: null,
        previous_page_uri: null,
        uri: `/${API_VERSION}/Accounts/${accountSid}/IncomingPhoneNumbers.json`,
      });
      return true;
    }
    if (resource === 'IncomingPhoneNumbers.json' && method === 'POST') {
      buy(accountSid, form, response);
      return true;
    }
    const release = /^IncomingPhoneNumbers\/(PN\w+)\.json$/.exec(resource);
    if (release && method === 'DELETE') {
      if (!numbers.release(accountSid, release[1]!)) twilioError(response, 404, 20404, 'Not found');
      else response.writeHead(204).end();
      return true;
    }
    return false;
  }

  function buy(accountSid: string, form: URLSearchParams, response: ServerResponse): void {
    const phoneNumber = form.get('PhoneNumber') ?? '';
    const offered = numbers.offer(phoneNumber);
    if (!offered) return twilioError(response, 400, 21422, `PhoneNumber ${phoneNumber} is not available`);
    const bundle = bundles.get(form.get('BundleSid') ?? '');
    if (
      offered.country_code === 'PL' &&
      offered.number_type === 'mobile' &&
      (bundle?.status !== 'twilio-approved' || bundle.account_sid !== accountSid)
    ) {
      return twilioError(response, 400, 21649, 'Phone Number Requires an approved Bundle');
    }
    const owned = numbers.sell(accountSid, phoneNumber, twilioSid('PN'), {
      voiceUrl: form.get('VoiceUrl'),
      smsUrl: form.get('SmsUrl'),
    })!;
    return sendJson(response, 201, {
      sid: owned.id,
      account_sid: accountSid,
      phone_number: phoneNumber,
      voice_url: owned.voiceUrl,
      sms_url: owned.smsUrl ?? null,
      capabilities: {
        voice: owned.capabilities.includes('voice'),
        sms: owned.capabilities.includes('sms'),
        mms: false,
        fax: false,
      },
      status: 'in-use',
      bundle_sid: form.get('BundleSid'),
    });
  }

  return { compliance, supportingDocument, accountResource, stop };
}
