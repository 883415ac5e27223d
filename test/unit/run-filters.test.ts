import { describe, expect, it } from 'vitest';
import { runFilterExpression } from '../../shared/repositories/runs-read.ts';

describe('run list filters', () => {
  it.each([
    ['no filter', {}, { ExpressionAttributeValues: {} }],
    [
      'status',
      { status: 'busy' as const },
      {
        FilterExpression: '#status = :status',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':status': 'busy' },
      },
    ],
    [
      'a time range given with an offset, compared as stored (UTC)',
      { createdFrom: '2026-11-01T02:00:00+02:00', createdTo: '2026-11-02T00:00:00Z' },
      {
        FilterExpression: 'created_at >= :createdFrom AND created_at < :createdTo',
        ExpressionAttributeValues: {
          ':createdFrom': '2026-11-01T00:00:00.000Z',
          ':createdTo': '2026-11-02T00:00:00.000Z',
        },
      },
    ],
    [
      'disposition and a text in the name or number',
      { disposition: 'interested', search: '+4860' },
      {
        FilterExpression:
          'gathered_context.call_disposition = :disposition AND (contains(#name, :search) OR contains(phone_number, :search))',
        ExpressionAttributeNames: { '#name': 'name' },
        ExpressionAttributeValues: { ':disposition': 'interested', ':search': '+4860' },
      },
    ],
    [
      'no test conversation, with a status',
      { status: 'completed' as const, tests: false as const },
      {
        FilterExpression: '#status = :status AND attribute_not_exists(#test)',
        ExpressionAttributeNames: { '#status': 'status', '#test': 'test' },
        ExpressionAttributeValues: { ':status': 'completed' },
      },
    ],
  ])('%s', (_case, filters, expected) => {
    expect(runFilterExpression(filters)).toEqual(expected);
  });
});
