import { describe, expect, it } from 'vitest';
import { localReviewVerdict } from '../../local/carrier/regulatory-reviewers.ts';
import {
  documentRefusal,
  sniffDocumentType,
  splitName,
  telnyxCustomerReference,
  telnyxOrderVerdict,
  telnyxRequirementValue,
  twilioBundleVerdict,
  twilioRegulationItems,
  twilioReviewName,
  type EndUserData,
} from '../../shared/domain/regulatory-review.ts';

const PDF = Buffer.from('%PDF-1.7\n');
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]);
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0]);

const person: EndUserData = {
  name: 'Anna Maria Kowalska',
  address: 'ul. Marszałkowska 1, Warszawa',
  document_type: 'id_card',
  document_number: 'ABC123456',
  document_id: 3,
};

describe('regulatory review rules', () => {
  it.each([
    [PDF, 'application/pdf'],
    [JPEG, 'image/jpeg'],
    [PNG, 'image/png'],
    [Buffer.from('GIF89a'), undefined],
    [Buffer.from('%PD'), undefined],
    [Buffer.alloc(0), undefined],
  ])('sniffs %s as %s', (data, type) => {
    expect(sniffDocumentType(data)).toBe(type);
  });

  it.each([
    ['application/pdf', PDF, undefined],
    ['image/png; charset=binary', PNG, undefined],
    ['IMAGE/JPEG', JPEG, undefined],
    ['text/plain', PDF, 415],
    ['', PDF, 415],
    ['image/gif', Buffer.from('GIF89a'), 415],
    ['image/png', PDF, 422],
    ['application/pdf', Buffer.from('hello'), 422],
    ['application/pdf', Buffer.alloc(0), 422],
  ] as const)('a %s upload of its bytes: refusal %s', (type, data, status) => {
    expect(documentRefusal(type, data)?.status).toBe(status);
  });

  it.each([
    ['Jan Nowak', { first: 'Jan', last: 'Nowak' }],
    ['  Anna Maria   Kowalska ', { first: 'Anna Maria', last: 'Kowalska' }],
    ['Cher', { first: 'Cher', last: 'Cher' }],
  ])('splits %j', (name, parts) => {
    expect(splitName(name)).toEqual(parts);
  });

  it.each([
    [
      person,
      {
        endUserType: 'individual',
        endUserAttributes: { first_name: 'Anna Maria', last_name: 'Kowalska' },
        documentType: 'government_issued_document',
        documentAttributes: {
          first_name: 'Anna Maria',
          last_name: 'Kowalska',
          document_number: 'ABC123456',
          address: 'ul. Marszałkowska 1, Warszawa',
        },
      },
    ],
    [{ ...person, document_type: 'passport' as const }, expect.objectContaining({ documentType: 'passport' })],
    [
      {
        ...person,
        name: 'Nowak Sp. z o.o.',
        document_type: 'company_registration' as const,
        document_number: 'KRS0000123',
      },
      {
        endUserType: 'business',
        endUserAttributes: { business_name: 'Nowak Sp. z o.o.' },
        documentType: 'business_registration',
        documentAttributes: {
          business_name: 'Nowak Sp. z o.o.',
          business_registration_number: 'KRS0000123',
          business_address: 'ul. Marszałkowska 1, Warszawa',
        },
      },
    ],
  ])('names %j in Twilio’s regulation', (endUser, items) => {
    expect(twilioRegulationItems(endUser)).toEqual(items);
  });

  it.each([
    [{ field_type: 'document', name: 'Proof of identity' }, 'doc-1'],
    [{ field_type: 'address', name: 'Address' }, 'ul. Marszałkowska 1, Warszawa'],
    [{ field_type: 'textual', name: 'First Name' }, 'Anna Maria'],
    [{ field_type: 'textual', name: 'Last name' }, 'Kowalska'],
    [{ field_type: 'textual', name: 'Full name or company name' }, 'Anna Maria Kowalska'],
    [{ field_type: 'textual', name: 'Identification number' }, 'ABC123456'],
    [{ field_type: 'textual', name: 'Date of birth' }, undefined],
    [{ field_type: 'datetime', name: 'Valid until' }, undefined],
  ])('gives Telnyx’s %j the value %j', (requirement, value) => {
    expect(telnyxRequirementValue(requirement, person, 'doc-1')).toBe(value);
  });

  it.each([
    ['draft', undefined, { decision: 'pending' }],
    ['pending-review', undefined, { decision: 'pending' }],
    ['in-review', undefined, { decision: 'pending' }],
    ['provisionally-approved', undefined, { decision: 'approve' }],
    ['twilio-approved', undefined, { decision: 'approve' }],
    ['twilio-rejected', 'Blurry document', { decision: 'reject', reason: 'Blurry document' }],
    ['twilio-rejected', ' ', { decision: 'reject', reason: 'Rejected in Twilio’s regulatory review' }],
  ])('a Twilio bundle %s (%s)', (status, reason, verdict) => {
    expect(twilioBundleVerdict(status, reason)).toEqual(verdict);
  });

  it.each([
    ['pending', [], { decision: 'pending' }],
    [undefined, [], { decision: 'pending' }],
    ['success', [], { decision: 'approve' }],
    ['failure', [], { decision: 'reject', reason: 'Telnyx declined the number order’s regulatory requirements' }],
    [
      'failure',
      ['Address', 'Proof of identity'],
      { decision: 'reject', reason: 'Telnyx declined the requirements: Address; Proof of identity' },
    ],
  ])('a Telnyx order %s declining %j', (status, declined, verdict) => {
    expect(telnyxOrderVerdict(status, declined)).toEqual(verdict);
  });

  it.each([
    [['Jan', 'ABC1'], true, { status: 'approved', silent: false }],
    [['Jan', 'SILENT-1'], true, { status: 'approved', silent: true }],
    [['Jan', 'hold-7'], true, { status: 'held' }],
    [
      ['Jan', 'REJECT-7'],
      true,
      { status: 'rejected', reason: 'The document REJECT-7 could not be verified against the issuing register' },
    ],
    [['Jan', 'ABC1'], false, { status: 'rejected', reason: 'An identity document is required' }],
  ])('the local reviewers decide %j (document %s)', (values, hasDocument, verdict) => {
    expect(localReviewVerdict({ values, hasDocument })).toEqual(verdict);
  });
});

describe("end_user_id in the provider's review (the customer's subscriber traced back)", () => {
  it.each([
    ['leads the name', 1042, 'PL mobile Anna Maria Kowalska', 'end user 1042: PL mobile Anna Maria Kowalska'],
    [
      'a long name is cut, the id kept whole',
      2147483647,
      'PL mobile Przedsiębiorstwo Handlowo-Usługowe Kowalski i Wspólnicy',
      'end user 2147483647: PL mobile Przedsiębiorstwo Handlowo-Usługow',
    ],
  ])('Twilio friendly name: %s', (_name, endUserId, description, expected) => {
    const name = twilioReviewName(endUserId, description);
    expect(name).toBe(expected);
    expect(name.length).toBeLessThanOrEqual(64);
  });

  it("is part of Telnyx's customer_reference, after the platform's number that makes it unique", () => {
    expect(telnyxCustomerReference(3, 17, 1042)).toBe('number-3-17-end-user-1042');
  });
});
