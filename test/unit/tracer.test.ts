import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const TRACER_MODULE = fileURLToPath(new URL('../../shared/observability/tracer.ts', import.meta.url));

/** Loads the tracer module in a fresh process with `env` and reports what the X-Ray SDK set up. */
function loadTracer(env: Record<string, string>) {
  const script = `
    const { tracer } = await import(${JSON.stringify(TRACER_MODULE)});
    const namespace = process.namespaces?.AWSXRay;
    console.log(JSON.stringify({ tracing: tracer.isTracingEnabled(), contextHooks: Boolean(namespace) }));`;
  const { AWS_EXECUTION_ENV: _runtime, AWS_XRAY_MANUAL_MODE: _mode, ...inherited } = process.env;
  const output = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    env: { ...inherited, ...env },
    encoding: 'utf8',
  });
  return JSON.parse(output.trim().split('\n').at(-1)!) as { tracing: boolean; contextHooks: boolean };
}

describe('tracer', () => {
  it('outside Lambda traces nothing and installs no X-Ray context hooks', () => {
    expect(loadTracer({})).toEqual({ tracing: false, contextHooks: false });
  });

  it('in a Lambda execution environment traces, with the X-Ray SDK in its automatic (async hook) mode', () => {
    expect(loadTracer({ AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x', AWS_LAMBDA_FUNCTION_NAME: 'test' })).toEqual({
      tracing: true,
      contextHooks: true,
    });
  });
});
