/**
 * The single DynamoDB table's physical schema, shared by the CDK stack and the local stack so both
 * create the same table. The logical key design (which entity lives under which keys) is in
 * `keys.ts` and the README.
 */
export const TABLE_SCHEMA = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Items with this attribute (epoch seconds) are deleted by DynamoDB TTL. */
  ttlAttribute: 'expiresAt',
  globalSecondaryIndexes: [{ indexName: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' }],
} as const;
