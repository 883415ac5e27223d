/**
 * The language model behind one interface. The real client speaks the OpenAI-compatible chat
 * completions API (`LLM_API_URL`, `LLM_API_KEY`, `LLM_MODEL`, or an organization's own key); without
 * a configured API (the local stack, tests) a deterministic local model answers, so nothing calls
 * the network and the same input always gives the same output.
 */
export interface CompletionRequest {
  /** What the model is asked to do, e.g. `translate`, `write-steps`, `distill-script`. */
  task: string;
  system: string;
  prompt: string;
}

export interface LanguageModel {
  readonly kind: 'remote' | 'local';
  complete(request: CompletionRequest): Promise<string>;
}

export class LanguageModelError extends Error {
  override readonly name = 'LanguageModelError';
}

/** `fetch` is the SSRF guard (shared/net/guarded-fetch.ts) for an organization's own API URL. */
export function remoteModel(settings: { apiUrl: string; apiKey: string; model: string; fetch?: typeof fetch }): LanguageModel {
  const send = settings.fetch ?? fetch;
  return {
    kind: 'remote',
    async complete(request) {
      const response = await send(`${settings.apiUrl.replace(/\/$/, '')}/chat/completions`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${settings.apiKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          model: settings.model,
          messages: [
            { role: 'system', content: request.system },
            { role: 'user', content: request.prompt },
          ],
          temperature: 0.2,
        }),
        signal: AbortSignal.timeout(25_000),
      }).catch((error: unknown) => {
        throw new LanguageModelError(`The language model could not be reached: ${(error as Error).message}`);
      });
      if (!response.ok) throw new LanguageModelError(`The language model answered ${response.status}`);
      const body = (await response.json()) as { choices?: { message?: { content?: string } }[] };
      const content = body.choices?.[0]?.message?.content;
      if (typeof content !== 'string') throw new LanguageModelError('The language model returned no text');
      return content.trim();
    },
  };
}

/** Deterministic stand-in: marks its work so tests can see what was asked, without any network. */
export const localModel: LanguageModel = {
  kind: 'local',
  async complete(request) {
    const text = request.prompt.trim();
    switch (request.task) {
      case 'translate': {
        const target = /target language: (.+)/i.exec(request.system)?.[1]?.trim() ?? 'target';
        return `[${target}] ${text}`;
      }
      case 'write-steps':
        // One step per line of the brief, phrased as a question.
        return text
          .split('\n')
          .map((line) => line.trim())
          .filter(Boolean)
          .map((line) => (line.endsWith('?') ? line : `Could you tell me about ${line.replace(/[.:]+$/, '').toLowerCase()}?`))
          .join('\n');
      case 'distill-script':
        return text
          .split('\n')
          .map((line) => line.replace(/\s+/g, ' ').trim())
          .filter(Boolean)
          .join('\n');
      default:
        return text;
    }
  },
};

/** The platform's model: the configured remote API, or the local model when none is configured. */
export function platformModel(): LanguageModel {
  const apiUrl = process.env.LLM_API_URL;
  if (!apiUrl || process.env.LLM_PROVIDER === 'local') return localModel;
  return remoteModel({ apiUrl, apiKey: process.env.LLM_API_KEY ?? '', model: process.env.LLM_MODEL ?? 'gpt-4o-mini' });
}
