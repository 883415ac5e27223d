import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Two rules of the project's layout (docs/project-layout.md) that review alone let slip before
 * (issue 31: a 1,154-line media session; a domain module importing a repository, in a circle with
 * another): checked on the files themselves, so a change that breaks one fails here by name.
 */
const ROOT = join(import.meta.dirname, '..', '..');

function sourceFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((name) => /\.tsx?$/.test(name))
    .map((name) => join(folder, name));
}

/** The module specifiers a file imports or re-exports (static and dynamic). */
function imports(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm)].map((match) => match[1]!);
}

describe('the layout of the code', () => {
  it('keeps every file of the media service at 500 lines or fewer (split along its seams past that)', () => {
    const long = sourceFiles('media/src')
      .map((file) => ({ file, lines: readFileSync(join(ROOT, file), 'utf8').split('\n').length - 1 }))
      .filter(({ lines }) => lines > 500);
    expect(long).toEqual([]);
  });

  it('keeps the domain pure: no domain module imports a repository, a service or an AWS client', () => {
    const impure = sourceFiles('shared/domain').flatMap((file) =>
      imports(file)
        .filter((specifier) => /(^|\/)(repositories|services|aws)\/|^@aws-sdk\//.test(specifier))
        .map((specifier) => `${relative(ROOT, join(ROOT, file))} imports ${specifier}`),
    );
    expect(impure).toEqual([]);
  });
});
