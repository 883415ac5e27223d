import type { ServerResponse } from 'node:http';
import { sendJson } from './http.ts';
import type { NumberInventory } from './number-inventory.ts';
import { API_VERSION, twilioError, twilioSid } from './twilio-rest.ts';

/**
 * The local Twilio's number resources on the carrier's number inventory: AvailablePhoneNumbers,
 * IncomingPhoneNumbers (buy, list, release), and the regulatory Bundles and EndUsers a Polish
 * mobile needs (its reviewers approve every bundle they are sent).
 */
export function twilioNumbers(numbers: NumberInventory) {
  const bundles = new Map<
    string,
    { sid: string; account_sid: string; status: string; friendly_name: string | null; email: string | null }
  >();

  /** `POST /v2/RegulatoryCompliance/{Bundles,EndUsers}[/{BU…}[/ItemAssignments]]`. */
  function compliance(
    accountSid: string,
    [collection, bundleSid, assignments]: (string | undefined)[],
    form: URLSearchParams,
    response: ServerResponse,
  ): void {
    if (collection === 'EndUsers')
      return sendJson(response, 201, {
        sid: twilioSid('IT'),
        account_sid: accountSid,
        friendly_name: form.get('FriendlyName'),
        type: form.get('Type'),
      });
    if (!bundleSid) {
      if (!form.get('Email') || !form.get('FriendlyName'))
        return twilioError(response, 400, 22204, 'Email and FriendlyName are required');
      const bundle = {
        sid: twilioSid('BU'),
        account_sid: accountSid,
        status: 'draft',
        friendly_name: form.get('FriendlyName'),
        email: form.get('Email'),
      };
      bundles.set(bundle.sid, bundle);
      return sendJson(response, 201, bundle);
    }
    const bundle = bundles.get(bundleSid);
    if (!bundle || bundle.account_sid !== accountSid) return twilioError(response, 404, 20404, 'Not found');
    if (assignments)
      return sendJson(response, 201, {
        sid: twilioSid('BV'),
        bundle_sid: bundleSid,
        object_sid: form.get('ObjectSid'),
      });
    // The local Twilio's reviewers approve every bundle they are sent; the platform's own review (operator CLI) decides.
    if (form.get('Status') === 'pending-review') bundle.status = 'twilio-approved';
    return sendJson(response, 200, bundle);
  }

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

  return { compliance, accountResource };
}
