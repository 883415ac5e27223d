import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Swagger UI's files, served by this function so the reference page needs no CDN: in the Lambda
 * bundle they sit in `swagger-ui/` beside the handler (the stack copies them there); from source,
 * in node_modules.
 */
function assetDirectory(): string {
  const bundled = join(dirname(fileURLToPath(import.meta.url)), 'swagger-ui');
  if (existsSync(bundled)) return bundled;
  return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
}

const ASSET_TYPES: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
};

const cache = new Map<string, string>();

/** A Swagger UI asset by file name, or undefined when it is not one we serve. */
export function swaggerUiAsset(name: string): { body: string; contentType: string } | undefined {
  // Own keys only: `constructor` or `toString` is a 404, not Object.prototype's member.
  const contentType = Object.hasOwn(ASSET_TYPES, name) ? ASSET_TYPES[name] : undefined;
  if (!contentType) return undefined;
  let body = cache.get(name);
  if (body === undefined) {
    body = readFileSync(join(assetDirectory(), name), 'utf8');
    cache.set(name, body);
  }
  return { body, contentType };
}
