import { chunkText, rankPassages } from '../domain/knowledge.ts';
import { ConflictError, NotFoundError } from '../domain/errors.ts';
import { randomAlphanumeric } from '../domain/ids.ts';
import { pageInfo, pageOffset, type PageRequest } from '../domain/pagination.ts';
import * as repository from '../repositories/agent-resources.ts';
import { deleteRunFiles, putRunFile } from '../repositories/run-files.ts';
import { getAgent } from './agents.ts';
import { assertPublicUrl } from './public-urls.ts';
import { sealToolHeaders } from './tool-calls.ts';

/** Passages per agent at most: search ranks them all in one Lambda invocation. */
export const MAX_KNOWLEDGE_PASSAGES = 3000;
/** Tools per agent at most (what a model can reasonably choose from). */
export const MAX_TOOLS_PER_AGENT = 32;

const documentView = ({ storage_key: _key, ...document }: repository.KnowledgeDocumentRecord) => document;

/** Stores the text in S3 (the original) and its passages in the table (what search reads). */
export async function addKnowledgeDocument(
  orgId: number,
  agentRef: string,
  request: { title: string; content: string },
) {
  const agent = await getAgent(orgId, agentRef);
  const passages = chunkText(request.content);
  const existing = (await repository.allPassages(orgId, agent.id)).length;
  if (existing + passages.length > MAX_KNOWLEDGE_PASSAGES) {
    throw new ConflictError(
      `The knowledge base of this agent is full (${MAX_KNOWLEDGE_PASSAGES} passages); delete documents first`,
    );
  }
  const id = `doc_${randomAlphanumeric(16)}`;
  const document: repository.KnowledgeDocumentRecord = {
    id,
    workflow_id: agent.id,
    title: request.title,
    characters: request.content.length,
    chunks: passages.length,
    created_at: new Date().toISOString(),
    storage_key: `knowledge/org-${orgId}/agent-${agent.id}/${id}.txt`,
  };
  await putRunFile(document.storage_key, request.content, 'text/plain; charset=utf-8');
  await repository.insertKnowledgeDocument(orgId, document, passages);
  return documentView(document);
}

export async function listKnowledgeDocuments(orgId: number, agentRef: string, page: PageRequest) {
  const agent = await getAgent(orgId, agentRef);
  const { items, totalCount } = await repository.listKnowledgeDocuments(orgId, agent.id, pageOffset(page), page.limit);
  return { items: items.map(documentView), ...pageInfo(page, totalCount) };
}

export async function deleteKnowledgeDocument(orgId: number, agentRef: string, documentId: string): Promise<void> {
  const agent = await getAgent(orgId, agentRef);
  const document = await repository.getKnowledgeDocument(orgId, agent.id, documentId);
  if (!document) throw new NotFoundError('Document not found');
  await repository.deleteKnowledgeDocument(orgId, agent.id, documentId);
  await deleteRunFiles([document.storage_key]);
}

export async function searchKnowledge(orgId: number, agentRef: string, query: { q: string; limit: number }) {
  const agent = await getAgent(orgId, agentRef);
  const ranked = rankPassages(query.q, await repository.allPassages(orgId, agent.id), query.limit);
  return {
    query: query.q,
    passages: ranked.map(({ document_id, title, text, score }) => ({
      document_id,
      title,
      text,
      score: Math.round(score * 1000) / 1000,
    })),
  };
}

/** Header values are write-only: a tool shows which headers it sends, not what they hold. */
export const HIDDEN_HEADER_VALUE = '********';

const toolView = ({
  header_names,
  headers_ciphertext: _sealed,
  plaintext_headers: _notYetSealed,
  ...tool
}: repository.ToolRecord) => ({
  ...tool,
  headers: Object.fromEntries(header_names.map((name) => [name, HIDDEN_HEADER_VALUE])),
});

export async function createTool(
  orgId: number,
  agentRef: string,
  request: Pick<repository.ToolRecord, 'name' | 'description' | 'method' | 'url' | 'parameters'> & {
    headers: Record<string, string>;
  },
) {
  const agent = await getAgent(orgId, agentRef);
  await assertPublicUrl(request.url, 'Tool');
  const tools = await repository.listTools(orgId, agent.id);
  if (tools.some((tool) => tool.name === request.name))
    throw new ConflictError(`The agent already has a tool named ${request.name}`);
  if (tools.length >= MAX_TOOLS_PER_AGENT) throw new ConflictError(`An agent has at most ${MAX_TOOLS_PER_AGENT} tools`);
  const { headers, ...fields } = request;
  const id = `tool_${randomAlphanumeric(16)}`;
  const tool: repository.ToolRecord = {
    id,
    workflow_id: agent.id,
    created_at: new Date().toISOString(),
    ...fields,
    ...(await sealToolHeaders(orgId, id, headers)),
  };
  await repository.putTool(orgId, tool);
  return toolView(tool);
}

export async function listTools(orgId: number, agentRef: string) {
  const agent = await getAgent(orgId, agentRef);
  return { items: (await repository.listTools(orgId, agent.id)).map(toolView) };
}

export async function getTool(orgId: number, agentRef: string, toolId: string) {
  const agent = await getAgent(orgId, agentRef);
  const tool = await repository.getTool(orgId, agent.id, toolId);
  if (!tool) throw new NotFoundError('Tool not found');
  return toolView(tool);
}

export async function deleteTool(orgId: number, agentRef: string, toolId: string): Promise<void> {
  const agent = await getAgent(orgId, agentRef);
  if (!(await repository.deleteTool(orgId, agent.id, toolId))) throw new NotFoundError('Tool not found');
}
