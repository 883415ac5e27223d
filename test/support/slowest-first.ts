import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The order `vitest run` starts files in: the slowest first, so that none of the long files (calls
 * in real time, CDK synthesis) starts last and the run ends with four workers busy rather than one.
 * Vitest's own order times files by its cache, missing on a clean clone (CI), where it falls back
 * on file sizes: answering-machines.test.ts and call-transfer.test.ts are a few lines each (their
 * suites are in test/support) and would start last. So the files timed in `test/file-durations.json`
 * (ms, from one whole run's JSON report: `npx tsx scripts/file-durations.ts report.json`) go
 * first, longest first; the others follow in vitest's own order.
 */
export default class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const durations = JSON.parse(readFileSync(new URL('../file-durations.json', import.meta.url), 'utf8')) as Record<
      string,
      number
    >;
    const timed = (file: TestSpecification) => durations[relative(this.ctx.config.root, file.moduleId)];
    const known = files.filter((file) => timed(file) !== undefined).sort((a, b) => timed(b)! - timed(a)!);
    const others = await super.sort(files.filter((file) => timed(file) === undefined));
    return [...known, ...others];
  }
}
