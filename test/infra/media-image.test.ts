/**
 * The media image's build step, run as the Dockerfile runs it (no Docker here): its esbuild
 * command, read from media/Dockerfile, bundles the service into one file, and that file starts
 * under Node 22, as `node media.mjs` does in the container, up to its own check of the settings.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
let outDir: string | undefined;
afterAll(async () => {
  if (outDir) await rm(outDir, { recursive: true, force: true });
});

/** The arguments of the Dockerfile's `npx esbuild …` step (continuation lines joined, quotes undone). */
async function dockerfileEsbuildArgs(): Promise<string[]> {
  const dockerfile = (await readFile('media/Dockerfile', 'utf8')).replace(/\\\n\s*/g, ' ');
  const command = /^RUN npx esbuild (.+)$/m.exec(dockerfile)?.[1];
  if (!command) throw new Error('media/Dockerfile has no `RUN npx esbuild` step');
  return [...command.matchAll(/(?:[^\s"]+="[^"]*"|[^\s"]+)/g)].map(([arg]) => arg.replace(/="(.*)"$/, '=$1'));
}

describe('media image', () => {
  it('bundles the service as the Dockerfile does, and the bundle starts (failing only on its settings, each named)', async () => {
    outDir = await mkdtemp(join(tmpdir(), 'media-image-'));
    const outfile = join(outDir, 'media.mjs');
    const args = (await dockerfileEsbuildArgs()).map((arg) =>
      arg.startsWith('--outfile=') ? `--outfile=${outfile}` : arg,
    );
    await run('npx', ['esbuild', ...args, '--log-level=error']);
    // Outside the repository, with none of its node_modules: the image holds this one file.
    const start = (env: Record<string, string>) =>
      run(process.execPath, [outfile], {
        cwd: outDir,
        env: { PATH: process.env.PATH, PORT: '0', ...env },
        timeout: 30_000,
      }).then(
        () => ({ code: 0, output: '' }),
        (error: { code: number; stdout: string; stderr: string }) => ({
          code: error.code,
          output: error.stdout + error.stderr,
        }),
      );
    const started = await start({});
    expect(started.code).not.toBe(0);
    expect(started.output).toContain(
      'The media service cannot start: the settings LLM_API_URL and LLM_MODEL must be set',
    );
    // The telemetry settings too: no silent default for where the spans go.
    const withoutTelemetry = await start({
      LLM_API_URL: 'http://127.0.0.1:9/v1',
      LLM_MODEL: 'model',
      MEDIA_MAX_CALLS: '10',
      POWERTOOLS_METRICS_NAMESPACE: 'VoiceAgentPlatform/Media',
    });
    expect(withoutTelemetry.code).not.toBe(0);
    expect(withoutTelemetry.output).toContain('Setting OTEL_TRACES_EXPORTER is not configured');
  }, 120_000);
});
