import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { decryptSecret, encryptSecret } from './secret-box.ts';

/**
 * Encryption of files at rest (a regulated number's identity documents): each file gets its own
 * AES-256-GCM data key, and the data key is wrapped by the secret box (KMS on AWS, with the
 * encryption context; LOCAL_ENCRYPTION_KEY locally). The wrapped key is kept with the file's
 * record, the sealed bytes (`iv | tag | ciphertext`) in S3: neither alone reads the file.
 */
export async function sealFile(data: Buffer, context: Record<string, string>) {
  const dataKey = randomBytes(32);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', dataKey, iv);
  cipher.setAAD(Buffer.from(JSON.stringify(context)));
  const body = Buffer.concat([cipher.update(data), cipher.final()]);
  return {
    sealed: Buffer.concat([iv, cipher.getAuthTag(), body]),
    wrappedKey: await encryptSecret(dataKey.toString('base64'), context),
  };
}

export async function openFile(sealed: Buffer, wrappedKey: string, context: Record<string, string>): Promise<Buffer> {
  const dataKey = Buffer.from(await decryptSecret(wrappedKey, context), 'base64');
  const decipher = createDecipheriv('aes-256-gcm', dataKey, sealed.subarray(0, 12));
  decipher.setAAD(Buffer.from(JSON.stringify(context)));
  decipher.setAuthTag(sealed.subarray(12, 28));
  return Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]);
}
