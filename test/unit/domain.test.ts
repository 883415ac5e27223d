import { describe, expect, it } from 'vitest';
import { parseAgentStatusFilter } from '../../shared/domain/agent-status-filter.ts';
import { generateApiKey, parseApiKey, secretMatches } from '../../shared/domain/api-key-format.ts';
import { BadRequestError } from '../../shared/domain/errors.ts';
import { newPublicAgentId } from '../../shared/domain/ids.ts';
import { pageInfo, pageOffset, totalPages } from '../../shared/domain/pagination.ts';

describe('pagination', () => {
  it.each([
    [{ page: 1, limit: 20 }, 0, 0, 0],
    [{ page: 1, limit: 20 }, 1, 0, 1],
    [{ page: 2, limit: 20 }, 40, 20, 2],
    [{ page: 3, limit: 20 }, 41, 40, 3],
    [{ page: 9, limit: 10 }, 5, 80, 1],
  ])('%o of %i items: offset %i, %i pages', (request, total, offset, pages) => {
    expect(pageOffset(request)).toBe(offset);
    expect(totalPages(total, request.limit)).toBe(pages);
    expect(pageInfo(request, total)).toEqual({ ...request, total_count: total, total_pages: pages });
  });
});

describe('agent status filter', () => {
  it.each([
    [undefined, ['active', 'archived']],
    ['active', ['active']],
    ['archived', ['archived']],
    ['active,archived', ['active', 'archived']],
    [' archived , active ', ['archived', 'active']],
    ['active,active', ['active']],
  ])('%s → %o', (raw, expected) => {
    expect(parseAgentStatusFilter(raw)).toEqual(expected);
  });

  it.each(['', 'deleted', 'active,', 'ACTIVE', 'active;archived'])('%o → 400', (raw) => {
    expect(() => parseAgentStatusFilter(raw)).toThrow(BadRequestError);
  });
});

describe('API key format', () => {
  it('generates keys whose id part names the record and whose secret only matches its hash', () => {
    const generated = generateApiKey();
    expect(generated.key).toMatch(/^vap_[A-Za-z0-9]{16}_[A-Za-z0-9]{40}$/);
    const parsed = parseApiKey(generated.key);
    expect(parsed?.keyId).toBe(generated.keyId);
    expect(secretMatches(parsed!.secret, generated.secretHash)).toBe(true);
    expect(secretMatches('x'.repeat(40), generated.secretHash)).toBe(false);
    expect(generated.secretHash).not.toContain(parsed!.secret);
  });

  it.each([
    '',
    'vap_',
    'Bearer abc',
    `vap_${'a'.repeat(16)}_${'b'.repeat(39)}`,
    `vap_${'a'.repeat(16)}-${'b'.repeat(40)}`,
  ])('rejects %o', (key) => expect(parseApiKey(key)).toBeUndefined());

  it('public agent ids match the documented pattern and do not repeat', () => {
    const ids = new Set(Array.from({ length: 1000 }, newPublicAgentId));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(/^agent_[A-Za-z0-9]{20}$/);
  });
});
