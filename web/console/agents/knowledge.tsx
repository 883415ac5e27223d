/** An agent's knowledge base: its documents, one added from typed text or a file's text, one removed. */
import { useQuery } from '@tanstack/preact-query';
import { useMutation } from '../lib/mutation.ts';
import { useState } from 'preact/hooks';
import { answer, extractText, useApi } from '../lib/api.ts';
import { ErrorLine, onSubmitRun } from '../lib/ui.tsx';

export function Knowledge({ agentId }: { agentId: string }) {
  const api = useApi();
  const path = { agent_id: agentId };
  const documents = useQuery({
    queryKey: ['knowledge', agentId],
    queryFn: () => answer(api.GET('/agents/{agent_id}/knowledge-base/documents', { params: { path } })),
  });
  const [title, setTitle] = useState('');
  const [content, setContent] = useState('');
  const add = useMutation({
    mutationFn: () =>
      answer(api.POST('/agents/{agent_id}/knowledge-base/documents', { params: { path }, body: { title, content } })),
    meta: { touches: ['knowledge', agentId] },
    onSuccess: () => {
      setTitle('');
      setContent('');
    },
  });
  const readDocument = useMutation({
    mutationFn: async (file: File) => ({
      title: file.name.replace(/\.[^.]+$/, ''),
      text: await extractText(api, file, 'knowledge'),
    }),
    onSuccess: (read) => {
      setTitle((current) => current || read.title);
      setContent(read.text);
    },
  });
  const remove = useMutation({
    mutationFn: (documentId: string) =>
      answer(
        api.DELETE('/agents/{agent_id}/knowledge-base/documents/{document_id}', {
          params: { path: { ...path, document_id: documentId } },
        }),
      ),
    meta: { touches: ['knowledge', agentId] },
  });
  return (
    <section aria-labelledby="knowledge-title">
      <h3 id="knowledge-title">Knowledge base</h3>
      <ErrorLine error={documents.error ?? add.error ?? remove.error ?? readDocument.error} />
      <ul aria-label="Knowledge documents">
        {documents.data?.items.map((document) => (
          <li key={document.id}>
            {document.title} ({document.characters} characters, {document.chunks} chunks){' '}
            <button type="button" class="secondary" onClick={() => remove.mutate(document.id)}>
              Remove {document.title}
            </button>
          </li>
        ))}
      </ul>
      <form onSubmit={onSubmitRun(() => add.mutate())}>
        <label for="knowledge-title-input">Document title</label>
        <input id="knowledge-title-input" required value={title} onInput={(e) => setTitle(e.currentTarget.value)} />
        <label for="knowledge-file">Text from a file (PDF, DOCX, TXT or MD), or typed below</label>
        <input
          id="knowledge-file"
          type="file"
          accept=".pdf,.docx,.txt,.md"
          onChange={(e) => {
            const file = e.currentTarget.files?.[0];
            if (file) readDocument.mutate(file);
          }}
        />
        <label for="knowledge-content">Text</label>
        <textarea
          id="knowledge-content"
          required
          rows={4}
          value={content}
          onInput={(e) => setContent(e.currentTarget.value)}
        />
        <button type="submit" disabled={add.isPending}>
          Add document
        </button>
      </form>
    </section>
  );
}
