import { describe, expect, it } from 'vitest';
import { definitionStatus } from '../../shared/domain/definitions.ts';

describe('a definition version’s status', () => {
  it.each([
    ['the current version, published', { id: 7, published_at: '2026-11-26T10:00:00Z' }, 7, 'current'],
    [
      'a version published before, then replaced (a rollback target)',
      { id: 5, published_at: '2026-11-20T10:00:00Z' },
      7,
      'published',
    ],
    ['a draft never published', { id: 9, published_at: null }, 7, 'draft'],
  ] as const)('%s', (_case, version, currentDefinitionId, expected) => {
    expect(definitionStatus(version, currentDefinitionId)).toBe(expected);
  });
});
