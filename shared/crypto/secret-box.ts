import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { optionalSetting } from '../config/settings.ts';

/**
 * Encryption of secrets at rest (OAuth refresh tokens). On AWS: KMS (`KMS_KEY_ID`), with the
 * organization id as encryption context so a ciphertext cannot be replayed into another
 * organization. Locally: AES-256-GCM with `LOCAL_ENCRYPTION_KEY` (32 bytes, base64url), same
 * context as additional authenticated data. Ciphertexts are prefixed with their scheme.
 */
let kms: KMSClient | undefined;

function localKey(): Buffer {
  const encoded = optionalSetting('LOCAL_ENCRYPTION_KEY');
  if (!encoded) throw new Error('Set KMS_KEY_ID (AWS) or LOCAL_ENCRYPTION_KEY (local) to store secrets');
  const key = Buffer.from(encoded, 'base64url');
  if (key.length !== 32) throw new Error('LOCAL_ENCRYPTION_KEY must be 32 bytes, base64url');
  return key;
}

export async function encryptSecret(plaintext: string, context: Record<string, string>): Promise<string> {
  const keyId = optionalSetting('KMS_KEY_ID');
  if (keyId) {
    kms ??= new KMSClient({});
    const result = await kms.send(
      new EncryptCommand({ KeyId: keyId, Plaintext: Buffer.from(plaintext, 'utf8'), EncryptionContext: context }),
    );
    return `kms:${Buffer.from(result.CiphertextBlob!).toString('base64')}`;
  }
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', localKey(), iv);
  cipher.setAAD(Buffer.from(JSON.stringify(context)));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return `local:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
}

export async function decryptSecret(ciphertext: string, context: Record<string, string>): Promise<string> {
  const [scheme, payload] = [
    ciphertext.slice(0, ciphertext.indexOf(':')),
    ciphertext.slice(ciphertext.indexOf(':') + 1),
  ];
  if (scheme === 'kms') {
    kms ??= new KMSClient({});
    const result = await kms.send(
      new DecryptCommand({ CiphertextBlob: Buffer.from(payload, 'base64'), EncryptionContext: context }),
    );
    return Buffer.from(result.Plaintext!).toString('utf8');
  }
  if (scheme !== 'local') throw new Error('Unknown ciphertext scheme');
  const raw = Buffer.from(payload, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', localKey(), raw.subarray(0, 12));
  decipher.setAAD(Buffer.from(JSON.stringify(context)));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}
