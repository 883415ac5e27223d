/**
 * The console (web/console) for the local stack: its TypeScript bundled for the browser with
 * esbuild when the stack starts, served by the local gateway under CONSOLE_PATH on the API's own
 * origin, so the page calls the API without cross-origin requests.
 */
import { readFile } from 'node:fs/promises';
import { build } from 'esbuild';
import { basename, join } from 'node:path';
import { REPO_ROOT } from './paths.ts';

const repoPath = (path: string) => join(REPO_ROOT, path);

export const CONSOLE_PATH = '/console/';

export interface SiteFile {
  contentType: string;
  body: Buffer;
}

/**
 * The page's policy: its own scripts (and the audio worklet the session library makes from a
 * blob), the API on its own origin and the media service's session WebSocket.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self' blob:",
  "connect-src 'self' ws: wss:",
  // Recordings: a signed link on the API's origin redirects to the bucket's presigned URL.
  "media-src 'self' https: http://127.0.0.1:*",
  "style-src 'self'",
  "img-src 'self' data:",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

export const CONSOLE_HEADERS = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

/** The console's files by path under CONSOLE_PATH ('' is the page). */
export async function buildConsole(): Promise<Map<string, SiteFile>> {
  const bundle = await build({
    entryPoints: [repoPath('web/console/talk.ts'), repoPath('web/console/calls.tsx')],
    outdir: 'out',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    minify: true,
    sourcemap: 'inline',
    logLevel: 'silent',
  });
  const page = await readFile(repoPath('web/console/index.html'));
  return new Map<string, SiteFile>([
    ['', { contentType: 'text/html; charset=utf-8', body: page }],
    ['index.html', { contentType: 'text/html; charset=utf-8', body: page }],
    [
      'console.css',
      { contentType: 'text/css; charset=utf-8', body: await readFile(repoPath('web/console/console.css')) },
    ],
    ...bundle.outputFiles.map(
      (file) =>
        [basename(file.path), { contentType: 'text/javascript; charset=utf-8', body: Buffer.from(file.contents) }] as [
          string,
          SiteFile,
        ],
    ),
    [
      'calls.html',
      { contentType: 'text/html; charset=utf-8', body: await readFile(repoPath('web/console/calls.html')) },
    ],
  ]);
}
