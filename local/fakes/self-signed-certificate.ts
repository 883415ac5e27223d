/**
 * A TLS certificate for a local fake whose real service is reached only over TLS (the `openai`
 * package opens the Realtime API at wss:// whatever its base URL): self-signed for 127.0.0.1, made
 * once per process; the client is told to trust it by the local stack's or tests' settings.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let certificate: { key: string; cert: string } | null = null;

/** A self-signed certificate for 127.0.0.1, made once per process with the system's openssl (EC keys: fast). */
export function selfSignedCertificate(): { key: string; cert: string } {
  certificate ??= makeCertificate();
  return certificate;
}

function makeCertificate(): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'fake-realtime-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1,DNS:localhost',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
