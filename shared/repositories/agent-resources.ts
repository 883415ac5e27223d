import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  paginateScan,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { keys, stripKeys } from './keys.ts';
import { countQuery, db, queryItems, tableName } from './table.ts';

export interface KnowledgeDocumentRecord {
  id: string;
  workflow_id: number;
  title: string;
  characters: number;
  chunks: number;
  created_at: string;
  storage_key: string;
}

export interface ToolRecord {
  id: string;
  workflow_id: number;
  name: string;
  description: string;
  method: string;
  url: string;
  /** Names of the headers sent with every call; their values are only in `headers_ciphertext`. */
  header_names: string[];
  /** The headers (JSON), encrypted (shared/crypto/secret-box.ts); null without headers. */
  headers_ciphertext: string | null;
  /**
   * Only for a tool stored before headers were encrypted at rest (its item holds `headers` in the
   * clear) and not yet migrated (`npm run admin -- tools encrypt-headers`): its headers as stored.
   */
  plaintext_headers?: Record<string, string>;
  parameters: Record<string, unknown>;
  created_at: string;
}

/** Tool headers are sealed in `headers_ciphertext` since encryption at rest; before, `headers` held them in the clear. */
const isPlaintextHeaders = (value: unknown): value is Record<string, string> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A stored tool, in either shape: a tool stored before encryption at rest reads with its plaintext headers apart. */
function toolFrom(item: Record<string, unknown>): ToolRecord {
  const { headers, ...tool } = strip<ToolRecord & { headers?: unknown }>(item);
  if (tool.headers_ciphertext !== undefined || !isPlaintextHeaders(headers))
    return { ...tool, header_names: tool.header_names ?? [], headers_ciphertext: tool.headers_ciphertext ?? null };
  return { ...tool, header_names: Object.keys(headers), headers_ciphertext: null, plaintext_headers: headers };
}

const strip = <T>(item: Record<string, unknown>): T => {
  const { type: _type, ...rest } = stripKeys(item);
  return rest as T;
};

const prefixQuery = (orgId: number, agentId: number, prefix: string) => ({
  KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
  ExpressionAttributeValues: { ':pk': keys.runPartition(orgId, agentId), ':prefix': prefix },
});

async function batchWrite(requests: Record<string, unknown>[]): Promise<void> {
  const table = tableName();
  for (let i = 0; i < requests.length; i += 25) {
    let pending: Record<string, unknown>[] | undefined = requests.slice(i, i + 25);
    while (pending?.length) {
      const result = await db().send(new BatchWriteCommand({ RequestItems: { [table]: pending as never } }));
      pending = result.UnprocessedItems?.[table] as Record<string, unknown>[] | undefined;
    }
  }
}

/** Writes the passages, then the document that lists them (a document appears only when searchable). */
export async function insertKnowledgeDocument(
  orgId: number,
  document: KnowledgeDocumentRecord,
  passages: readonly string[],
): Promise<void> {
  await batchWrite(
    passages.map((text, index) => ({
      PutRequest: {
        Item: {
          ...keys.knowledgeChunk(orgId, document.workflow_id, document.id, index),
          type: 'knowledgeChunk',
          document_id: document.id,
          title: document.title,
          text,
        },
      },
    })),
  );
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...keys.knowledgeDocument(orgId, document.workflow_id, document.id),
        type: 'knowledgeDocument',
        ...document,
      },
    }),
  );
}

export async function getKnowledgeDocument(
  orgId: number,
  agentId: number,
  documentId: string,
): Promise<KnowledgeDocumentRecord | undefined> {
  const result = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.knowledgeDocument(orgId, agentId, documentId) }),
  );
  return result.Item ? strip<KnowledgeDocumentRecord>(result.Item) : undefined;
}

export async function listKnowledgeDocuments(orgId: number, agentId: number, offset: number, limit: number) {
  const query = prefixQuery(orgId, agentId, keys.knowledgeDocumentSkPrefix);
  const [totalCount, items] = await Promise.all([countQuery(query), queryItems(query, offset, limit)]);
  return { items: items.map((item) => strip<KnowledgeDocumentRecord>(item)), totalCount };
}

/** Every passage of the agent's knowledge base (search ranks them in memory). */
export async function allPassages(
  orgId: number,
  agentId: number,
): Promise<{ id: string; document_id: string; title: string; text: string }[]> {
  const items = await queryItems(prefixQuery(orgId, agentId, keys.knowledgeChunkSkPrefix));
  return items.map((item) => ({
    id: String(item.sk),
    document_id: String(item.document_id),
    title: String(item.title),
    text: String(item.text),
  }));
}

/** Removes a document and its passages. */
export async function deleteKnowledgeDocument(orgId: number, agentId: number, documentId: string): Promise<void> {
  const chunks = await queryItems(prefixQuery(orgId, agentId, `${keys.knowledgeChunkSkPrefix}${documentId}#`));
  await db().send(
    new DeleteCommand({ TableName: tableName(), Key: keys.knowledgeDocument(orgId, agentId, documentId) }),
  );
  await batchWrite(chunks.map((item) => ({ DeleteRequest: { Key: { pk: item.pk, sk: item.sk } } })));
}

export async function putTool(orgId: number, tool: ToolRecord): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.tool(orgId, tool.workflow_id, tool.id), type: 'tool', ...tool },
    }),
  );
}

export async function listTools(orgId: number, agentId: number): Promise<ToolRecord[]> {
  return (await queryItems(prefixQuery(orgId, agentId, keys.toolSkPrefix))).map(toolFrom);
}

export async function getTool(orgId: number, agentId: number, toolId: string): Promise<ToolRecord | undefined> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: keys.tool(orgId, agentId, toolId) }));
  return result.Item ? toolFrom(result.Item) : undefined;
}

/**
 * Every tool whose headers are still stored in the clear, page by page, with its organization.
 * A Scan: for the operator's one-off migration only, never on a request path.
 */
export async function* toolsWithPlaintextHeaders(): AsyncGenerator<{ orgId: number; tool: ToolRecord }[]> {
  const pages = paginateScan(
    { client: db() },
    {
      TableName: tableName(),
      FilterExpression: '#type = :tool AND attribute_exists(headers) AND attribute_not_exists(headers_ciphertext)',
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: { ':tool': 'tool' },
    },
  );
  for await (const page of pages) {
    yield (page.Items ?? []).flatMap((item) => {
      const orgId = Number(/^ORG#(\d+)#/.exec(String(item.pk))?.[1]);
      const tool = toolFrom(item);
      return Number.isInteger(orgId) && tool.plaintext_headers ? [{ orgId, tool }] : [];
    });
  }
}

/**
 * Replaces a tool's plaintext headers with their sealed form, only if the item still holds exactly
 * those plaintext headers (not migrated meanwhile, not deleted). False when it did not.
 */
export async function sealPlaintextToolHeaders(
  orgId: number,
  tool: ToolRecord & { plaintext_headers: Record<string, string> },
  sealed: Pick<ToolRecord, 'header_names' | 'headers_ciphertext'>,
): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.tool(orgId, tool.workflow_id, tool.id),
        UpdateExpression: 'SET header_names = :names, headers_ciphertext = :sealed REMOVE headers',
        ConditionExpression: 'attribute_not_exists(headers_ciphertext) AND headers = :plaintext',
        ExpressionAttributeValues: {
          ':names': sealed.header_names,
          ':sealed': sealed.headers_ciphertext,
          ':plaintext': tool.plaintext_headers,
        },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

export async function deleteTool(orgId: number, agentId: number, toolId: string): Promise<boolean> {
  const result = await db().send(
    new DeleteCommand({ TableName: tableName(), Key: keys.tool(orgId, agentId, toolId), ReturnValues: 'ALL_OLD' }),
  );
  return result.Attributes !== undefined;
}
