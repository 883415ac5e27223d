import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const module = (path: string) => JSON.stringify(fileURLToPath(new URL(path, import.meta.url)));

describe('local stack log level', () => {
  it('loading the local stack does not make the handlers’ logger before the stack sets its level', () => {
    // The logger reads POWERTOOLS_LOG_LEVEL once, when made: the stack sets it (SILENT for tests
    // and benchmarks) after its own imports, so none of them may reach the logger.
    const script = `
      await import(${module('../../local/stack.ts')});
      process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
      const { logger } = await import(${module('../../shared/observability/logger.ts')});
      console.log(logger.getLevelName());`;
    const { POWERTOOLS_LOG_LEVEL: _level, ...inherited } = process.env;
    const output = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      env: inherited,
      encoding: 'utf8',
    });
    expect(output.trim().split('\n').at(-1)).toBe('SILENT');
    // A fresh Node process compiling the whole local stack with tsx: about 2 s alone, past vitest's
    // default 5 s with four workers on two cores (it failed so in two suite runs). Nothing is timed.
  }, 60_000);
});
