/**
 * The console (web/console): its pages, styles and the TypeScript bundled for the browser with
 * esbuild, and the security headers it is served with. The local gateway serves these files under
 * CONSOLE_PATH on the API's origin; the stack puts the same files in a bucket behind CloudFront,
 * which also passes /api/v1/* to the API, so the console calls the API on its own origin either way.
 */
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { buildSync } from 'esbuild';
import { REPO_ROOT } from './paths.ts';

const repoPath = (path: string) => join(REPO_ROOT, path);

export const CONSOLE_PATH = '/console/';

export interface SiteFile {
  contentType: string;
  body: Buffer;
}

/**
 * The pages' policy: their own scripts (and the audio worklet the session library makes from a
 * blob), the API on their own origin or any deployment's (the API answers CORS), the media
 * service's WebSockets (talk and listen sessions),
 * recordings through the API's signed links (redirected to the bucket's presigned URLs), and the
 * spreadsheet provider's file picker (Google Picker: its loader from apis.google.com, its window a
 * frame from docs.google.com). Locally the media service is plain `ws:`, the bucket emulator and
 * the local Google (its picker loader) answer on loopback http.
 */
export function contentSecurityPolicy(where: 'local' | 'deployed'): string {
  return [
    "default-src 'self'",
    where === 'local'
      ? "script-src 'self' blob: http://127.0.0.1:*"
      : "script-src 'self' blob: https://apis.google.com",
    'frame-src https://docs.google.com',
    // Any deployment's API (it answers CORS) and the media service's WebSockets.
    where === 'local' ? "connect-src 'self' http://127.0.0.1:* https: ws: wss:" : "connect-src 'self' https: wss:",
    where === 'local' ? "media-src 'self' https: http://127.0.0.1:*" : "media-src 'self' https:",
    "style-src 'self'",
    "img-src 'self' data:",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

export const CONSOLE_HEADERS = {
  'Content-Security-Policy': contentSecurityPolicy('local'),
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

const file = (contentType: string, path: string): SiteFile => ({ contentType, body: readFileSync(repoPath(path)) });
const HTML = 'text/html; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

/**
 * The console's files by name ('' is the console's page locally; CloudFront serves `index.html`
 * for `/`). Source maps are inlined for the local stack only.
 */
export function consoleFiles(options: { sourceMaps: boolean }): Map<string, SiteFile> {
  const bundle = buildSync({
    entryPoints: [repoPath('web/console/console.tsx')],
    outdir: 'out',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    // The flow editor's graph library (@xyflow/react) is written for React: it runs on Preact's
    // compatibility layer, so the page carries one renderer.
    alias: { react: 'preact/compat', 'react-dom': 'preact/compat', 'react/jsx-runtime': 'preact/jsx-runtime' },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    minify: true,
    sourcemap: options.sourceMaps ? 'inline' : false,
    logLevel: 'silent',
  });
  return new Map<string, SiteFile>([
    ['index.html', file(HTML, 'web/console/index.html')],
    ['console.css', file(CSS, 'web/console/console.css')],
    // uPlot's own stylesheet (the usage chart's legend and axes).
    ['uplot.css', file(CSS, 'node_modules/uplot/dist/uPlot.min.css')],
    // @xyflow/react's own stylesheet (the flow editor's canvas, nodes, edges and controls).
    ['xyflow.css', file(CSS, 'node_modules/@xyflow/react/dist/style.css')],
    ...bundle.outputFiles.map((output): [string, SiteFile] => [
      basename(output.path),
      { contentType: 'text/javascript; charset=utf-8', body: Buffer.from(output.contents) },
    ]),
  ]);
}
