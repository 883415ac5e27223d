/**
 * Lean Lambdas: every function's bundle as the CDK stack deploys it, against a floor bundle that
 * holds only that function's AWS SDK clients, all built with the stack's esbuild options
 * (infra/bundling.ts). Size is the code a cold start loads (`index.mjs` and the chunks it imports
 * statically; chunks behind a dynamic import are listed apart); import time is the median of fresh
 * `node` processes importing the bundle with the function's environment from the template
 * (NODE_OPTIONS included) and the Lambda runtime's own variables. Goal: both ≤ 1.25× the floor.
 *
 * A second floor adds to those clients the libraries the project requires that the function
 * bundles (Powertools Tracer capturing the clients, Logger, Metrics, middy, zod), each used once:
 * what the function's own code costs is its distance from that floor, and how far the required
 * libraries alone are from the first floor shows what the goal leaves room for.
 * `npx tsx bench/bundle-sizes.ts` runs it alone.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildSync, type Metafile } from 'esbuild';
import { LAMBDA_ESBUILD_OPTIONS } from '../infra/bundling.ts';
import { createApp } from '../infra/create-app.ts';
import { SERVICE_NAME } from '../infra/constructs/functions.ts';
import { REPO_ROOT } from '../infra/paths.ts';
import { AUTHORIZER, FUNCTION_GROUPS, type FunctionGroup } from '../shared/api/function-groups.ts';

export const GOAL_RATIO = 1.25;

/** The client each AWS SDK package contributes to a floor bundle. */
const FLOOR_CLIENTS: Record<string, string> = {
  '@aws-sdk/client-dynamodb':
    "import { DynamoDBClient } from '@aws-sdk/client-dynamodb'; import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'; clients.push(DynamoDBDocumentClient.from(capture(new DynamoDBClient({}))));",
  '@aws-sdk/client-s3': "import { S3Client } from '@aws-sdk/client-s3'; clients.push(capture(new S3Client({})));",
  '@aws-sdk/client-sfn': "import { SFNClient } from '@aws-sdk/client-sfn'; clients.push(capture(new SFNClient({})));",
  '@aws-sdk/client-eventbridge':
    "import { EventBridgeClient } from '@aws-sdk/client-eventbridge'; clients.push(capture(new EventBridgeClient({})));",
  '@aws-sdk/client-kms': "import { KMSClient } from '@aws-sdk/client-kms'; clients.push(capture(new KMSClient({})));",
  '@aws-sdk/client-secrets-manager':
    "import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager'; clients.push(capture(new SecretsManagerClient({})));",
};

/**
 * The libraries the project requires (issue 10's Tracer and Metrics, the structured Logger, middy
 * for handlers, zod for every schema), as a floor uses each: once, minimally. The Tracer's line
 * runs before the clients', which it captures as shared/observability/tracer.ts does.
 */
const FLOOR_LIBRARIES: Record<string, string> = {
  '@aws-lambda-powertools/tracer':
    "import { Tracer } from '@aws-lambda-powertools/tracer'; const tracer = new Tracer(); capture = (client) => tracer.captureAWSv3Client(client);",
  '@aws-lambda-powertools/logger':
    "import { Logger } from '@aws-lambda-powertools/logger'; libraries.push(new Logger());",
  '@aws-lambda-powertools/metrics':
    "import { Metrics } from '@aws-lambda-powertools/metrics'; libraries.push(new Metrics());",
  '@middy/core': "import middy from '@middy/core'; libraries.push(middy(async () => libraries.length));",
  zod: "import * as z from 'zod'; libraries.push(z.object({ name: z.string() }).safeParse({}));",
};

/** A floor's source: the libraries' lines, then the clients' (captured when the Tracer is in). */
const floorSource = (clients: string[], libraries: string[]) =>
  [
    'const clients: unknown[] = [];',
    'const libraries: unknown[] = [];',
    'let capture = <T>(client: T): T => client;',
    ...libraries.map((library) => FLOOR_LIBRARIES[library]),
    ...clients.map((client) => FLOOR_CLIENTS[client]),
    'export const handler = async () => clients.length + libraries.length;',
  ].join('\n');

/**
 * What the Lambda runtime itself sets that changes what an import does: with AWS_EXECUTION_ENV
 * Powertools Tracer is on (it patches http and https and subscribes to fetch), with
 * LAMBDA_TASK_ROOT the X-Ray SDK starts in its Lambda mode (shared/observability/xray-context.ts).
 */
const LAMBDA_RUNTIME_ENV = {
  AWS_REGION: 'us-east-1',
  AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
  LAMBDA_TASK_ROOT: '/var/task',
  AWS_XRAY_CONTEXT_MISSING: 'LOG_ERROR',
};

export interface BundleFigures {
  name: string;
  clients: string[];
  bytes: number;
  /** Chunks behind dynamic imports: loaded only by the request that needs them. */
  lazyBytes: number;
  floorBytes: number;
  /** The required libraries the function bundles, in its second floor. */
  libraries: string[];
  librariesFloorBytes: number;
  importMs: number;
  floorImportMs: number;
  librariesFloorImportMs: number;
  /** CPU time of the same imports (medians): steadier than wall time on a busy machine. */
  importCpuMs: number;
  floorImportCpuMs: number;
  librariesFloorImportCpuMs: number;
}

interface FunctionResource {
  Type: string;
  Properties: { Environment?: { Variables?: Record<string, unknown> } };
  Metadata?: { 'aws:asset:path'?: string };
}

/** Bytes of the output files a cold start loads, and of those only dynamic imports reach. */
function loadedBytes(metafile: Metafile) {
  const outputs = metafile.outputs;
  // Every dynamic-import chunk is an entry point to esbuild too; the function's own is index.mjs.
  const entry = Object.keys(outputs).find((path) => path.endsWith('/index.mjs'))!;
  const eager = new Set<string>();
  const visit = (path: string) => {
    if (eager.has(path)) return;
    eager.add(path);
    for (const imported of outputs[path]!.imports)
      if (imported.kind === 'import-statement' && outputs[imported.path]) visit(imported.path);
  };
  visit(entry);
  const js = Object.keys(outputs).filter((path) => path.endsWith('.mjs'));
  const sum = (paths: string[]) => paths.reduce((total, path) => total + outputs[path]!.bytes, 0);
  return {
    eager: js.filter((path) => eager.has(path)),
    bytes: sum(js.filter((path) => eager.has(path))),
    lazyBytes: sum(js.filter((path) => !eager.has(path))),
  };
}

/** The packages the bundle's cold-start code includes, of those `wanted` names. */
function includedPackages(metafile: Metafile, eagerOutputs: string[], wanted: (name: string) => boolean): string[] {
  const packages = new Set<string>();
  for (const output of eagerOutputs) {
    for (const input of Object.keys(metafile.outputs[output]!.inputs)) {
      const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
      if (match && wanted(match[1]!)) packages.add(match[1]!);
    }
  }
  return [...packages].sort();
}

/** The stack's build of an entry, with esbuild's metafile (output paths relative to the repository root). */
function buildWithMetafile(entry: string, outdir: string): Metafile {
  return buildSync({
    ...LAMBDA_ESBUILD_OPTIONS,
    absWorkingDir: REPO_ROOT,
    entryPoints: [entry],
    outdir,
    metafile: true,
  }).metafile;
}

/**
 * One cold import of a bundle in a fresh process with the function's environment: its wall time
 * and the CPU time the process spent on it, in ms. On a loaded machine the wall time also counts
 * waiting for a core; the CPU time does not.
 */
function coldImport(bundleDir: string, env: Record<string, string>): { wallMs: number; cpuMs: number } {
  const script = `const t = performance.now(); const c = process.cpuUsage(); await import(${JSON.stringify(pathToFileURL(join(bundleDir, 'index.mjs')).href)}); const u = process.cpuUsage(c); process.stdout.write(JSON.stringify({ wallMs: performance.now() - t, cpuMs: (u.user + u.system) / 1000 }));`;
  return JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      env: { PATH: process.env.PATH ?? '', ...env },
      encoding: 'utf8',
    }),
  ) as { wallMs: number; cpuMs: number };
}

const median = (samples: number[]) => [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)]!;

/** Medians of `runs` cold imports of each bundle, interleaved so machine load hits them alike. */
function medianImportTimes(bundleDirs: string[], env: Record<string, string>, runs: number) {
  const samples = bundleDirs.map(() => [] as { wallMs: number; cpuMs: number }[]);
  for (let run = 0; run < runs; run++)
    for (const [index, dir] of bundleDirs.entries()) samples[index]!.push(coldImport(dir, env));
  return samples.map((taken) => ({
    wallMs: median(taken.map((sample) => sample.wallMs)),
    cpuMs: median(taken.map((sample) => sample.cpuMs)),
  }));
}

/** Builds a floor from its source and gives its directory and the bytes a cold start loads. */
function buildFloor(sources: string, work: string, name: string, source: string) {
  const file = join(sources, `${name}.ts`);
  writeFileSync(file, source);
  const dir = join(work, name);
  return { dir, bytes: loadedBytes(buildWithMetafile(file, dir)).bytes };
}

/** A template value as the bench can pass it: literals as is, CloudFormation references as a placeholder. */
const envValue = (value: unknown): string => (typeof value === 'string' ? value : 'bench-placeholder');

export function measureBundles(options: { importRuns?: number } = {}): BundleFigures[] {
  const importRuns = options.importRuns ?? 7;
  // Asset metadata (the CLI's default) names each function's bundle directory in the template.
  const { app } = createApp({ context: { 'aws:cdk:enable-asset-metadata': true } });
  const assembly = app.synth();
  const stackArtifact = assembly.stacks[0]!;
  const resources = (stackArtifact.template as { Resources: Record<string, FunctionResource> }).Resources;
  const work = mkdtempSync(join(tmpdir(), 'bundle-bench-'));
  // Floor sources live under node_modules so that esbuild resolves the SDK exactly as for the handlers.
  const floorSources = join(REPO_ROOT, 'node_modules', '.cache', 'bundle-floors');
  mkdirSync(floorSources, { recursive: true });
  try {
    const figures: BundleFigures[] = [];
    for (const resource of Object.values(resources)) {
      const assetPath = resource.Metadata?.['aws:asset:path'];
      if (resource.Type !== 'AWS::Lambda::Function' || !assetPath) continue;
      const variables = resource.Properties.Environment?.Variables ?? {};
      const name = envValue(variables.POWERTOOLS_SERVICE_NAME).replace(`${SERVICE_NAME}-`, '');
      const deployed = join(assembly.directory, assetPath);

      // Rebuilt with the same options for the metafile; the deployed index.mjs must be identical.
      const group = name === 'authorizer' ? AUTHORIZER : (FUNCTION_GROUPS as Record<string, FunctionGroup>)[name];
      if (!group) throw new Error(`Function ${name} is not in FUNCTION_GROUPS`);
      const rebuilt = join(work, name);
      const metafile = buildWithMetafile(join(REPO_ROOT, group.entry), rebuilt);
      if (!readFileSync(join(rebuilt, 'index.mjs')).equals(readFileSync(join(deployed, 'index.mjs')))) {
        throw new Error(`${name}: the bench's build differs from the deployed bundle`);
      }
      const { eager, bytes, lazyBytes } = loadedBytes(metafile);
      const clients = includedPackages(metafile, eager, (pkg) => pkg.startsWith('@aws-sdk/client-'));
      const libraries = includedPackages(metafile, eager, (pkg) => pkg in FLOOR_LIBRARIES);
      const unknown = clients.filter((client) => !FLOOR_CLIENTS[client]);
      if (unknown.length)
        throw new Error(`${name}: no floor client for ${unknown.join(', ')} (add it to FLOOR_CLIENTS)`);
      const floor = buildFloor(floorSources, work, `${name}-floor`, floorSource(clients, []));
      const librariesFloor = buildFloor(floorSources, work, `${name}-libraries`, floorSource(clients, libraries));

      const env = {
        ...Object.fromEntries(Object.entries(variables).map(([key, value]) => [key, envValue(value)])),
        ...LAMBDA_RUNTIME_ENV,
        AWS_LAMBDA_FUNCTION_NAME: name,
      };
      const [own, sdk, required] = medianImportTimes([deployed, floor.dir, librariesFloor.dir], env, importRuns);
      figures.push({
        name,
        clients,
        bytes,
        lazyBytes,
        floorBytes: floor.bytes,
        libraries,
        librariesFloorBytes: librariesFloor.bytes,
        importMs: own!.wallMs,
        floorImportMs: sdk!.wallMs,
        librariesFloorImportMs: required!.wallMs,
        importCpuMs: own!.cpuMs,
        floorImportCpuMs: sdk!.cpuMs,
        librariesFloorImportCpuMs: required!.cpuMs,
      });
    }
    return figures.sort((a, b) => a.name.localeCompare(b.name));
  } finally {
    rmSync(work, { recursive: true, force: true });
    rmSync(floorSources, { recursive: true, force: true });
  }
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;
const ratio = (value: number, floor: number) => (floor > 0 ? value / floor : Number.POSITIVE_INFINITY);

/** Columns padded to their widest cell: text columns to the left, figures to the right. */
function formatTable(header: string[], rows: string[][], isText: (column: number) => boolean): string {
  const widths = header.map((_, column) => Math.max(...[header, ...rows].map((row) => row[column]!.length)));
  return [header, ...rows]
    .map((row) =>
      row
        .map((cell, column) => (isText(column) ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
        .join('  '),
    )
    .join('\n');
}

const ms = (value: number) => `${value.toFixed(0)} ms`;
const shortName = (pkg: string) => pkg.replace('@aws-sdk/client-', '').replace('@aws-lambda-powertools/', '');

/** The table per function: size and import time against the floor, and whether both meet the goal. */
export function formatBundleTable(figures: BundleFigures[]): string {
  const header = [
    'function',
    'bundle',
    'floor',
    'x',
    'import',
    'floor',
    'x',
    'goal',
    'import CPU',
    'floor',
    'x',
    'lazy chunks',
    'SDK clients',
  ];
  const rows = figures.map((f) => {
    const sizeRatio = ratio(f.bytes, f.floorBytes);
    const timeRatio = ratio(f.importMs, f.floorImportMs);
    return [
      f.name,
      kib(f.bytes),
      kib(f.floorBytes),
      sizeRatio.toFixed(2),
      ms(f.importMs),
      ms(f.floorImportMs),
      timeRatio.toFixed(2),
      sizeRatio <= GOAL_RATIO && timeRatio <= GOAL_RATIO ? 'met' : 'MISSED',
      ms(f.importCpuMs),
      ms(f.floorImportCpuMs),
      ratio(f.importCpuMs, f.floorImportCpuMs).toFixed(2),
      f.lazyBytes ? kib(f.lazyBytes) : '-',
      f.clients.map(shortName).join(', ') || '(none)',
    ];
  });
  return formatTable(header, rows, (column) => column === 0 || column >= 11);
}

/**
 * The same bundles against the second floor (SDK clients and the required libraries): "libraries
 * x" is that floor over the SDK-only one (what the libraries alone leave of the goal), "own x" the
 * bundle over it (what the function's own code adds).
 */
export function formatLibrariesTable(figures: BundleFigures[]): string {
  const header = [
    'function',
    'floor + libraries',
    'libraries x',
    'own x',
    'import',
    'libraries x',
    'own x',
    'import CPU',
    'libraries x',
    'own x',
    'libraries',
  ];
  const rows = figures.map((f) => [
    f.name,
    kib(f.librariesFloorBytes),
    ratio(f.librariesFloorBytes, f.floorBytes).toFixed(2),
    ratio(f.bytes, f.librariesFloorBytes).toFixed(2),
    ms(f.librariesFloorImportMs),
    ratio(f.librariesFloorImportMs, f.floorImportMs).toFixed(2),
    ratio(f.importMs, f.librariesFloorImportMs).toFixed(2),
    ms(f.librariesFloorImportCpuMs),
    ratio(f.librariesFloorImportCpuMs, f.floorImportCpuMs).toFixed(2),
    ratio(f.importCpuMs, f.librariesFloorImportCpuMs).toFixed(2),
    f.libraries.map(shortName).join(', ') || '(none)',
  ]);
  return formatTable(header, rows, (column) => column === 0 || column === 10);
}

/** Prints both tables, with what each compares. */
export function printBundleTables(figures: BundleFigures[]): void {
  console.log(`Lambda bundles as deployed vs a floor of their AWS SDK clients (goal: both ratios <= ${GOAL_RATIO}):`);
  console.log(formatBundleTable(figures));
  console.log(
    '\nThe same vs a floor of their AWS SDK clients and the required libraries they bundle (libraries x: that floor over the SDK-only one; own x: the bundle over it):',
  );
  console.log(formatLibrariesTable(figures));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  printBundleTables(measureBundles({ importRuns: Number(process.env.BENCH_IMPORT_RUNS ?? 7) }));
}
