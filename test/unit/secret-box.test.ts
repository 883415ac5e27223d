import { randomBytes } from 'node:crypto';
import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decryptSecret, encryptSecret } from '../../shared/crypto/secret-box.ts';

describe('secret box (local AES-256-GCM)', () => {
  beforeEach(() => {
    delete process.env.KMS_KEY_ID;
    process.env.LOCAL_ENCRYPTION_KEY = randomBytes(32).toString('base64url');
  });

  it('round-trips, never stores the plaintext, and binds the ciphertext to its organization', async () => {
    const sealed = await encryptSecret('refresh-token-123', { organizationId: '1' });
    expect(sealed).toMatch(/^local:/);
    expect(sealed).not.toContain('refresh-token-123');
    expect(await decryptSecret(sealed, { organizationId: '1' })).toBe('refresh-token-123');
    await expect(decryptSecret(sealed, { organizationId: '2' })).rejects.toThrow();
  });

  it('detects tampering', async () => {
    const sealed = await encryptSecret('refresh-token-123', { organizationId: '1' });
    const raw = Buffer.from(sealed.slice('local:'.length), 'base64');
    raw[raw.length - 1]! ^= 1;
    await expect(decryptSecret(`local:${raw.toString('base64')}`, { organizationId: '1' })).rejects.toThrow();
  });
});

describe('secret box (KMS)', () => {
  const kms = mockClient(KMSClient);
  afterEach(() => {
    kms.reset();
    delete process.env.KMS_KEY_ID;
  });

  it('passes the encryption context to KMS (fault path: a wrong context is refused by KMS)', async () => {
    process.env.KMS_KEY_ID = 'alias/test';
    kms.on(EncryptCommand).resolves({ CiphertextBlob: Buffer.from('cipher') });
    kms.on(DecryptCommand).rejects(new Error('InvalidCiphertextException'));
    const sealed = await encryptSecret('token', { organizationId: '7' });
    expect(sealed).toBe(`kms:${Buffer.from('cipher').toString('base64')}`);
    expect(kms.commandCalls(EncryptCommand)[0]!.args[0].input.EncryptionContext).toEqual({ organizationId: '7' });
    await expect(decryptSecret(sealed, { organizationId: '8' })).rejects.toThrow('InvalidCiphertextException');
  });
});
