import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { s3 } from '../aws/clients.ts';
import { loadConfig } from '../config.ts';
import { NUMBER_DOCUMENTS_PREFIX } from './bucket-layout.ts';
import { keys, stripKeys } from './keys.ts';
import { db, tableName } from './table.ts';

/** A regulated number's uploaded identity document: its record (the file itself is sealed in S3). */
export interface NumberDocumentRecord {
  id: number;
  organization_id: number;
  file_name: string;
  content_type: string;
  size_bytes: number;
  created_at: string;
  /** The file's data key, wrapped by the secret box. */
  wrapped_key: string;
}

const objectKey = (orgId: number, documentId: number) =>
  `${NUMBER_DOCUMENTS_PREFIX}org-${orgId}/document-${documentId}`;
const bucket = () => loadConfig().bucketName;

/** The sealed file first, then its record: a record never names a file that is not there. */
export async function putDocument(document: NumberDocumentRecord, sealed: Buffer): Promise<void> {
  await s3().send(
    new PutObjectCommand({
      Bucket: bucket(),
      Key: objectKey(document.organization_id, document.id),
      Body: sealed,
      ContentType: 'application/octet-stream',
    }),
  );
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.regulatoryDocument(document.organization_id, document.id), type: 'numberDocument', ...document },
    }),
  );
}

export async function getDocument(orgId: number, documentId: number): Promise<NumberDocumentRecord | undefined> {
  const result = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.regulatoryDocument(orgId, documentId), ConsistentRead: true }),
  );
  if (!result.Item) return undefined;
  const { type: _type, ...record } = stripKeys(result.Item);
  return record as unknown as NumberDocumentRecord;
}

export async function readSealedDocument(orgId: number, documentId: number): Promise<Buffer> {
  const object = await s3().send(new GetObjectCommand({ Bucket: bucket(), Key: objectKey(orgId, documentId) }));
  return Buffer.from(await object.Body!.transformToByteArray());
}

/** Erases the document: its file, then its record (a retry after a failure finds the record and erases again). */
export async function deleteDocument(orgId: number, documentId: number): Promise<void> {
  await s3().send(new DeleteObjectCommand({ Bucket: bucket(), Key: objectKey(orgId, documentId) }));
  await db().send(new DeleteCommand({ TableName: tableName(), Key: keys.regulatoryDocument(orgId, documentId) }));
}
