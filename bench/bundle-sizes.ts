/**
 * Size of each Lambda bundle as deployed: synthesizes the stack (offline) and reads the assets
 * CDK built for every function.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { REPO_ROOT } from '../local/paths.ts';

interface FunctionResource {
  Type: string;
  Properties: { Code?: { S3Key?: unknown }; Description?: string };
  Metadata?: { 'aws:asset:path'?: string };
}

function directorySize(dir: string): { raw: number; gzip: number } {
  let raw = 0;
  let gzip = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    raw += statSync(path).size;
    gzip += gzipSync(readFileSync(path)).length;
  }
  return { raw, gzip };
}

export function bundleSizes(): { name: string; raw: number; gzip: number }[] {
  const outdir = join(REPO_ROOT, 'cdk.out');
  execFileSync('npx', ['cdk', 'synth', '--quiet', '--output', outdir], { cwd: REPO_ROOT, stdio: 'ignore' });
  const templateFile = readdirSync(outdir).find((file) => file.endsWith('.template.json'))!;
  const template = JSON.parse(readFileSync(join(outdir, templateFile), 'utf8')) as { Resources: Record<string, FunctionResource> };
  return Object.entries(template.Resources)
    .filter(([, resource]) => resource.Type === 'AWS::Lambda::Function' && resource.Metadata?.['aws:asset:path'])
    .map(([logicalId, resource]) => ({ name: logicalId, ...directorySize(join(outdir, resource.Metadata!['aws:asset:path']!)) }))
    .sort((a, b) => b.raw - a.raw);
}
