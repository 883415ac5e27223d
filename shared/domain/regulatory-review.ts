/**
 * The rules of a regulated number's review (a Polish mobile): which documents the platform takes,
 * how the subscriber's data is named in each provider's regulation, and what a provider's status
 * means for the number. Pure: the adapters and the service apply them.
 */

/** The subscriber's data as the purchase request gives it (`end_user`). */
export interface EndUserData {
  name: string;
  address: string;
  document_type: 'id_card' | 'passport' | 'company_registration';
  document_number: string;
  /** The uploaded scan of the document (`POST /phone-numbers/documents`). */
  document_id?: number;
}

/**
 * How a review is traced back to the customer's subscriber at the provider: `end_user_id` (the
 * customer's own id of the subscriber the number is bought for) leads the name Twilio shows for
 * the bundle and its EndUser (at most 64 characters: the id is kept whole, the rest cut), and is part
 * of the `customer_reference` Telnyx keeps on the document, the requirement group and the number
 * order (the platform's number first, which makes it unique: the order's group is found by it).
 */
export const MAX_TWILIO_FRIENDLY_NAME = 64;

export function twilioReviewName(endUserId: number, description: string): string {
  return `end user ${endUserId}: ${description}`.slice(0, MAX_TWILIO_FRIENDLY_NAME);
}

export function telnyxCustomerReference(organizationId: number, numberId: number, endUserId: number): string {
  return `number-${organizationId}-${numberId}-end-user-${endUserId}`;
}

/** What a document upload may be: the types both providers accept for identity documents. */
export const DOCUMENT_CONTENT_TYPES = ['application/pdf', 'image/jpeg', 'image/png'] as const;
export type DocumentContentType = (typeof DOCUMENT_CONTENT_TYPES)[number];

/** 4 MiB: the upload travels base64-encoded in a Lambda event of at most 6 MB (Twilio takes up to 5 MB). */
export const MAX_DOCUMENT_BYTES = 4 * 1024 * 1024;

/**
 * The file's type by its first bytes, when it is one of the accepted ones: a declared
 * `Content-Type` is the client's word, the signature is the file's.
 */
export function sniffDocumentType(data: Uint8Array): DocumentContentType | undefined {
  const starts = (...bytes: number[]) => bytes.every((byte, index) => data[index] === byte);
  if (starts(0x25, 0x50, 0x44, 0x46, 0x2d)) return 'application/pdf'; // %PDF-
  if (starts(0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  return undefined;
}

/** Why an upload is refused, if it is: its declared type, its bytes, its size. */
export function documentRefusal(
  declaredType: string,
  data: Uint8Array,
): { status: 415 | 422; reason: string } | undefined {
  const declared = declaredType.split(';')[0]!.trim().toLowerCase();
  if (!(DOCUMENT_CONTENT_TYPES as readonly string[]).includes(declared))
    return { status: 415, reason: `A document must be PDF, JPEG or PNG, not ${declared || 'untyped'}` };
  if (data.length === 0) return { status: 422, reason: 'The file is empty' };
  const actual = sniffDocumentType(data);
  if (actual !== declared)
    return { status: 422, reason: `The file's content is ${actual ?? 'none of PDF, JPEG or PNG'}, not ${declared}` };
  return undefined;
}

/** Given name and family name from one `name` (the last word is the family name, as on a Polish ID). */
export function splitName(name: string): { first: string; last: string } {
  const words = name.trim().split(/\s+/);
  if (words.length === 1) return { first: words[0]!, last: words[0]! };
  return { first: words.slice(0, -1).join(' '), last: words.at(-1)! };
}

export const isBusiness = (endUser: Pick<EndUserData, 'document_type'>) =>
  endUser.document_type === 'company_registration';

/**
 * Twilio's regulation items for the subscriber: the EndUser (`individual`: first_name, last_name;
 * `business`: business_name) and the SupportingDocument carrying the scan, of the Supporting
 * Document Type the document is (passport, government_issued_document, business_registration),
 * with that type's attribute names.
 */
export interface TwilioRegulationItems {
  endUserType: 'individual' | 'business';
  endUserAttributes: Record<string, string>;
  documentType: string;
  documentAttributes: Record<string, string>;
}

export function twilioRegulationItems(endUser: EndUserData): TwilioRegulationItems {
  const { first, last } = splitName(endUser.name);
  if (isBusiness(endUser))
    return {
      endUserType: 'business',
      endUserAttributes: { business_name: endUser.name },
      documentType: 'business_registration',
      documentAttributes: {
        business_name: endUser.name,
        business_registration_number: endUser.document_number,
        business_address: endUser.address,
      },
    };
  return {
    endUserType: 'individual',
    endUserAttributes: { first_name: first, last_name: last },
    documentType: endUser.document_type === 'passport' ? 'passport' : 'government_issued_document',
    documentAttributes: {
      first_name: first,
      last_name: last,
      document_number: endUser.document_number,
      address: endUser.address,
    },
  };
}

/**
 * The value of one of Telnyx's regulatory requirements for the number (its `field_type` and
 * `name`, as `GET /v2/regulatory_requirements` lists them), or undefined when the platform has
 * nothing to give for it: the order is then not placed (a requirement left out is a decline later).
 */
export function telnyxRequirementValue(
  requirement: { field_type?: string; name?: string },
  endUser: EndUserData,
  documentId: string,
): string | undefined {
  const name = (requirement.name ?? '').toLowerCase();
  const { first, last } = splitName(endUser.name);
  switch (requirement.field_type) {
    case 'document':
      return documentId;
    case 'address':
      return endUser.address;
    case 'textual':
      if (/first name|given name/.test(name)) return first;
      if (/last name|surname|family name/.test(name)) return last;
      if (/company|business|name/.test(name)) return endUser.name;
      if (/number|registration|identification|\bid\b/.test(name)) return endUser.document_number;
      if (/address/.test(name)) return endUser.address;
      return undefined;
    default:
      return undefined;
  }
}

/** A provider's verdict on a number's review: still under way, or decided. */
export type ReviewVerdict = { decision: 'pending' } | { decision: 'approve' } | { decision: 'reject'; reason: string };

/**
 * A Twilio Bundle's status → verdict: `twilio-approved` (and `provisionally-approved`, with which
 * Twilio already sells the number) approve; `twilio-rejected` rejects with its failure reason;
 * `draft`, `pending-review`, `in-review` are still under way.
 */
export function twilioBundleVerdict(status: string, failureReason?: string | null): ReviewVerdict {
  if (status === 'twilio-approved' || status === 'provisionally-approved') return { decision: 'approve' };
  if (status === 'twilio-rejected')
    return { decision: 'reject', reason: failureReason?.trim() || 'Rejected in Twilio’s regulatory review' };
  return { decision: 'pending' };
}

/**
 * A Telnyx number order's status → verdict: `success` (the number is on the account) approves;
 * `failure` rejects, with the declined requirements named where known; `pending` is under way.
 */
export function telnyxOrderVerdict(status: string | undefined, declined: readonly string[] = []): ReviewVerdict {
  if (status === 'success') return { decision: 'approve' };
  if (status === 'failure')
    return {
      decision: 'reject',
      reason: declined.length
        ? `Telnyx declined the requirements: ${declined.join('; ')}`
        : 'Telnyx declined the number order’s regulatory requirements',
    };
  return { decision: 'pending' };
}
