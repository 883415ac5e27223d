import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROUTES } from '../shared/api/routes.ts';
import { buildOpenApiDocument } from '../shared/openapi/document.ts';

/**
 * `npm run lint:openapi`: the OpenAPI document as /public-openapi.json serves it (built from the
 * route table, no stack needed), linted by Spectral with the OWASP API Security ruleset
 * (`.spectral.yaml`) and by Redocly's recommended rules. Either one's errors fail it; warnings
 * are printed.
 */
const root = fileURLToPath(new URL('..', import.meta.url));
const bin = (name: string) => join(root, 'node_modules', '.bin', name);
// Any https base URL: the document's server is the deployment's own (Redocly flags example.com).
const document = buildOpenApiDocument(ROUTES, 'https://api.voice-agent-platform.invalid/api/v1');

const dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
const file = join(dir, 'public-openapi.json');
writeFileSync(file, JSON.stringify(document));
// Redocly reports usage and looks for updates over the network unless told not to: the lint
// runs offline, and tests send nothing off the machine.
const OFFLINE = {
  ...process.env,
  REDOCLY_TELEMETRY: 'off',
  REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
  REDOCLY_SUPPRESS_NOTIFICATIONS: 'true',
};
// Both linters at once (each takes a few seconds); each one's output is printed whole.
const run = (command: string, args: string[]) =>
  new Promise<boolean>((resolve) => {
    execFile(bin(command), args, { cwd: root, env: OFFLINE, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      process.stdout.write(stdout);
      process.stderr.write(stderr);
      resolve(!error);
    });
  });
let results: boolean[];
try {
  results = await Promise.all([
    run('spectral', [
      'lint',
      '--ruleset',
      join(root, '.spectral.yaml'),
      '--fail-severity',
      'error',
      '--display-only-failures',
      '--quiet',
      file,
    ]),
    run('redocly', ['lint', file, '--format', 'summary']),
  ]);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const failed = results.includes(false);
if (failed) {
  console.error('OpenAPI lint failed: see the errors above.');
  process.exit(1);
}
console.log('OpenAPI lint: no errors (Spectral OWASP ruleset, Redocly recommended).');
