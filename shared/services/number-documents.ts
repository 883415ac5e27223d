import { NotFoundError, UnsupportedMediaTypeError } from '../domain/errors.ts';
import { documentRefusal, type EndUserData } from '../domain/regulatory-review.ts';
import { openFile, sealFile } from '../crypto/file-box.ts';
import type { UploadedFile } from '../http/multipart.ts';
import { RequestValidationError } from '../http/validation-error.ts';
import { nextId } from '../repositories/counters.ts';
import * as repository from '../repositories/number-documents.ts';

/**
 * A regulated number's identity documents: uploaded before the purchase that names them
 * (`end_user.document_id`), stored sealed (file-box.ts), sent to the provider's review with the
 * subscriber's data, and erased when the number's review rejects it or on request.
 */

/** The encryption context binds a sealed file to its organization and document. */
const contextOf = (orgId: number, documentId: number) => ({
  organization_id: String(orgId),
  number_document_id: String(documentId),
});

const present = ({ wrapped_key: _key, ...document }: repository.NumberDocumentRecord) => document;

const fileProblem = (msg: string, input: unknown) =>
  new RequestValidationError([
    { type: 'value_error', loc: ['body', 'file'], msg: `Value error, ${msg}`, input, ctx: { error: msg } },
  ]);

export async function uploadDocument(orgId: number, file: UploadedFile | undefined) {
  if (!file)
    throw new RequestValidationError([{ type: 'missing', loc: ['body', 'file'], msg: 'Field required', input: null }]);
  const refusal = documentRefusal(file.contentType, file.data);
  if (refusal?.status === 415) throw new UnsupportedMediaTypeError(refusal.reason);
  if (refusal) throw fileProblem(refusal.reason, file.fileName);
  const id = await nextId('numberDocument');
  const { sealed, wrappedKey } = await sealFile(file.data, contextOf(orgId, id));
  const document: repository.NumberDocumentRecord = {
    id,
    organization_id: orgId,
    file_name: file.fileName.slice(0, 255) || 'document',
    content_type: file.contentType.split(';')[0]!.trim().toLowerCase(),
    size_bytes: file.data.length,
    created_at: new Date().toISOString(),
    wrapped_key: wrappedKey,
  };
  await repository.putDocument(document, sealed);
  return present(document);
}

export async function deleteDocument(orgId: number, documentId: number): Promise<void> {
  if (!(await repository.getDocument(orgId, documentId))) throw new NotFoundError('Document not found');
  await repository.deleteDocument(orgId, documentId);
}

/** Erases the document if it is still there (a number's rejection; repeated, it does nothing more). */
export const eraseDocument = (orgId: number, documentId: number) => repository.deleteDocument(orgId, documentId);

/** The document a purchase names, opened for the provider: a 422 on `end_user.document_id` when it is not the organization's. */
export async function documentForReview(orgId: number, endUser: EndUserData) {
  const document =
    endUser.document_id === undefined ? undefined : await repository.getDocument(orgId, endUser.document_id);
  if (!document)
    throw new RequestValidationError([
      {
        type: 'value_error',
        loc: ['body', 'end_user', 'document_id'],
        msg: 'Value error, upload the scan of the document first (POST /phone-numbers/documents) and give its id',
        input: endUser.document_id ?? null,
        ctx: { error: 'unknown document' },
      },
    ]);
  const data = await openFile(
    await repository.readSealedDocument(orgId, document.id),
    document.wrapped_key,
    contextOf(orgId, document.id),
  );
  return { fileName: document.file_name, contentType: document.content_type, data };
}
