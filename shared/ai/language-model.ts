/**
 * The language model of the AI authoring features, through the official `openai` client: any
 * OpenAI-compatible chat completions API. The platform's model is configured by `LLM_API_URL`,
 * `LLM_API_KEY` and `LLM_MODEL` (the CDK stack sets them from the VoiceProviders secret and context;
 * the local stack points them at its fake, local/fakes/openai-compatible.ts); an organization may
 * use its own key instead. Nothing here falls back to canned text: an unconfigured platform model
 * is a 503 naming what to configure, a failing provider a 502 naming it.
 */
import OpenAI from 'openai';
import { DomainError } from '../domain/errors.ts';

export interface CompletionRequest {
  system: string;
  prompt: string;
}

export interface LanguageModel {
  complete(request: CompletionRequest): Promise<string>;
}

/** The platform model is not configured (503). */
export class LanguageModelUnavailableError extends DomainError {
  readonly kind = 'unavailable';
}

/** The model's provider failed, timed out or answered nonsense (502). */
export class LanguageModelError extends DomainError {
  readonly kind = 'upstream';
}

export const MODEL_TIMEOUT_MS = 25_000;

/**
 * A model at an OpenAI-compatible API. `fetch` is the SSRF guard for an organization's own URL;
 * `upstream` names the provider in error messages.
 */
export function remoteModel(settings: { apiUrl: string; apiKey: string; model: string; fetch?: typeof fetch; upstream?: string }): LanguageModel {
  const upstream = settings.upstream ?? `The language model at ${hostOf(settings.apiUrl)}`;
  const client = new OpenAI({ apiKey: settings.apiKey, baseURL: settings.apiUrl, maxRetries: 1, timeout: MODEL_TIMEOUT_MS, ...(settings.fetch ? { fetch: settings.fetch } : {}) });
  return {
    async complete(request) {
      let completion: OpenAI.Chat.Completions.ChatCompletion;
      try {
        completion = await client.chat.completions.create({
          model: settings.model,
          messages: [
            { role: 'system', content: request.system },
            { role: 'user', content: request.prompt },
          ],
          temperature: 0.2,
        });
      } catch (error) {
        if (error instanceof OpenAI.APIConnectionTimeoutError) throw new LanguageModelError(`${upstream} did not answer within ${MODEL_TIMEOUT_MS / 1000} s`);
        if (error instanceof OpenAI.APIError && error.status) throw new LanguageModelError(`${upstream} answered ${error.status}: ${error.message}`.slice(0, 500));
        throw new LanguageModelError(`${upstream} could not be used: ${(error as Error).message}`.slice(0, 500));
      }
      const content: unknown = completion?.choices?.[0]?.message?.content;
      if (typeof content !== 'string' || !content.trim()) throw new LanguageModelError(`${upstream} returned no text`);
      return content.trim();
    },
  };
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** The platform's model, or a 503 naming the settings to configure. */
export function platformModel(env: NodeJS.ProcessEnv = process.env): LanguageModel {
  const missing = ['LLM_API_URL', 'LLM_API_KEY'].filter((name) => !env[name]?.trim());
  if (missing.length) {
    throw new LanguageModelUnavailableError(
      `The platform language model is not configured (${missing.join(', ')} unset): put the key into the llmApiKey field of the VoiceProviders secret ` +
        '(and set the llmApiUrl context value for a provider other than OpenAI), or set your own key with PUT /model-key',
    );
  }
  return remoteModel({ apiUrl: env.LLM_API_URL!, apiKey: env.LLM_API_KEY!, model: env.LLM_MODEL || 'gpt-4o-mini', upstream: 'The platform language model' });
}
