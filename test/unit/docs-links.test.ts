/**
 * The README is the front door and `docs/` holds the reference: every relative link in them must
 * reach a file of the repository, and every `#anchor` into a Markdown page a heading of that page
 * (GitHub's heading slugs).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const pages = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function headingSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- _]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((match) => headingSlug(match[1]!)));
}

/** Relative Markdown links `[text](target)` outside code blocks. */
function linksOf(file: string): string[] {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!).filter((target) => !/^[a-z]+:/i.test(target));
}

describe('documentation links', () => {
  it('the README stays a front door (at most 300 lines)', () => {
    expect(readFileSync(join(root, 'README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(300);
  });

  it('slugs follow GitHub', () => {
    expect(headingSlug('Outbound URLs (SSRF guard)')).toBe('outbound-urls-ssrf-guard');
    expect(headingSlug('Telephony: from deploy to a first real call')).toBe(
      'telephony-from-deploy-to-a-first-real-call',
    );
    expect(headingSlug('Memories, knowledge bases, tools, usage')).toBe('memories-knowledge-bases-tools-usage');
  });

  it.each(pages)('%s: every relative link resolves', (page) => {
    const file = join(root, page);
    const broken: string[] = [];
    for (const link of linksOf(file)) {
      const [path, anchor] = link.split('#') as [string, string | undefined];
      const target = path ? resolve(dirname(file), decodeURIComponent(path)) : file;
      if (!existsSync(target)) {
        broken.push(`${link} (no file ${relative(root, target)})`);
        continue;
      }
      if (anchor && target.endsWith('.md') && !anchorsOf(target).has(anchor))
        broken.push(`${link} (no heading #${anchor})`);
    }
    expect(broken).toEqual([]);
  });
});
