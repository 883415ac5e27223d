import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceNotFoundException,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import { TABLE_SCHEMA } from '../shared/repositories/table-schema.ts';

/**
 * Creates the application table in DynamoDB Local with the same keys and index as the CDK stack
 * (both read TABLE_SCHEMA). Existing tables are kept: local data survives restarts.
 */
export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<void> {
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    return;
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
  }
  const { partitionKey, sortKey, globalSecondaryIndexes } = TABLE_SCHEMA;
  const attributeNames = [
    partitionKey,
    sortKey,
    ...globalSecondaryIndexes.flatMap((index) => [index.partitionKey, index.sortKey]),
  ];
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: attributeNames.map((name) => ({ AttributeName: name, AttributeType: 'S' })),
      KeySchema: [
        { AttributeName: partitionKey, KeyType: 'HASH' },
        { AttributeName: sortKey, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: globalSecondaryIndexes.map((index) => ({
        IndexName: index.indexName,
        KeySchema: [
          { AttributeName: index.partitionKey, KeyType: 'HASH' },
          { AttributeName: index.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      })),
    }),
  );
  await waitUntilTableExists({ client, maxWaitTime: 30 }, { TableName: tableName });
}
