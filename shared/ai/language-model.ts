/**
 * The language model of the AI authoring features, through the official `openai` client: any
 * OpenAI-compatible chat completions API. The platform's model is configured by `LLM_API_URL`,
 * `LLM_MODEL` and the `llmApiKey` of the voice providers secret (read at run time; URL and model from context;
 * the local stack points them at its fake, local/fakes/openai-compatible.ts); an organization may
 * use its own key instead. Nothing here falls back to canned text: an unconfigured platform model
 * is a 503 naming what to configure, a failing provider a 502 naming it.
 */
import type { OpenAI } from 'openai';
import * as z from 'zod';
import { getSecretFields, SecretNotReadyError } from '../config/secrets.ts';
import { optionalSetting } from '../config/settings.ts';
import { DomainError } from '../domain/errors.ts';
import { createGuardedFetch } from '../net/guarded-fetch.ts';

export interface CompletionRequest {
  system: string;
  prompt: string;
  /** Counts the tokens the provider reports for this request (what a caller is charged for). */
  meter?: TokenMeter;
}

/** Tokens the model's provider reported, added up over requests. */
export interface TokenMeter {
  add(inputTokens: number, outputTokens: number): void;
}

/** A structured answer: the model fills `schema` (a JSON schema sent as `response_format`). */
export interface ExtractionRequest<T> extends CompletionRequest {
  /** Names the schema for the provider (`[a-zA-Z0-9_-]`) and in error messages. */
  name: string;
  schema: z.ZodType<T>;
  /**
   * The provider's strict mode (default true): it then guarantees the schema, which must close
   * every object and require every field. A customer's schema may not: sent as guidance, checked here.
   */
  strict?: boolean;
}

export interface LanguageModel {
  complete(request: CompletionRequest): Promise<string>;
  /** The model's answer validated by `schema`; anything else is a LanguageModelError (502). */
  extract<T>(request: ExtractionRequest<T>): Promise<T>;
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

/** An organization's own model URL is customer-chosen: reached through the SSRF guard. */
export const organizationModelFetch = createGuardedFetch({
  timeoutMs: MODEL_TIMEOUT_MS,
  maxResponseBytes: 1024 * 1024,
});

/**
 * An organization's own model (its stored URL and model, its decrypted key), reached only through
 * the SSRF guard: the address is checked at connect time, on every redirect too. `fetch` is the
 * guard itself (tests give it a stubbed resolver).
 */
export function organizationModel(
  stored: { api_url: string; model: string },
  apiKey: string,
  fetch: typeof globalThis.fetch = organizationModelFetch,
): LanguageModel {
  return remoteModel({
    apiUrl: stored.api_url,
    apiKey,
    model: stored.model,
    fetch,
    upstream: "The organization's language model",
  });
}

/**
 * A model at an OpenAI-compatible API. `fetch` is the SSRF guard for an organization's own URL;
 * `upstream` names the provider in error messages.
 */
export function remoteModel(settings: {
  apiUrl: string;
  apiKey: string;
  model: string;
  fetch?: typeof fetch;
  upstream?: string;
}): LanguageModel {
  const upstream = settings.upstream ?? `The language model at ${hostOf(settings.apiUrl)}`;
  let client: OpenAI | undefined;
  /** One chat completion; every failure of the provider is a LanguageModelError naming it. */
  async function answer(
    request: CompletionRequest,
    extra: Partial<OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming> = {},
  ): Promise<string> {
    // The client (about 400 KiB bundled) loads with the first completion, not with the cold start.
    const { APIConnectionTimeoutError, APIError, OpenAI } = await import('openai');
    client ??= new OpenAI({
      apiKey: settings.apiKey,
      baseURL: settings.apiUrl,
      maxRetries: 1,
      timeout: MODEL_TIMEOUT_MS,
      ...(settings.fetch ? { fetch: settings.fetch } : {}),
    });
    let completion: OpenAI.Chat.Completions.ChatCompletion;
    try {
      completion = await client.chat.completions.create({
        model: settings.model,
        messages: [
          { role: 'system', content: request.system },
          { role: 'user', content: request.prompt },
        ],
        temperature: 0.2,
        ...extra,
      });
    } catch (error) {
      if (error instanceof APIConnectionTimeoutError)
        throw new LanguageModelError(`${upstream} did not answer within ${MODEL_TIMEOUT_MS / 1000} s`);
      if (error instanceof APIError && error.status)
        throw new LanguageModelError(`${upstream} answered ${error.status}: ${error.message}`.slice(0, 500));
      // A connection error carries its reason (the SSRF guard's refusal, a reset) as its cause.
      const cause = (error as { cause?: unknown }).cause;
      const reason = cause instanceof Error ? cause.message : (error as Error).message;
      throw new LanguageModelError(`${upstream} could not be used: ${reason}`.slice(0, 500));
    }
    request.meter?.add(completion?.usage?.prompt_tokens ?? 0, completion?.usage?.completion_tokens ?? 0);
    const message = completion?.choices?.[0]?.message;
    if (typeof message?.refusal === 'string' && message.refusal)
      throw new LanguageModelError(`${upstream} declined: ${message.refusal}`.slice(0, 500));
    const content: unknown = message?.content;
    if (typeof content !== 'string' || !content.trim()) throw new LanguageModelError(`${upstream} returned no text`);
    return content.trim();
  }

  return {
    complete: (request) => answer(request),
    async extract(request) {
      const content = await answer(request, {
        response_format: {
          type: 'json_schema',
          json_schema: { name: request.name, strict: request.strict ?? true, schema: strictSchema(request.schema) },
        },
        temperature: 0,
      });
      let parsed: unknown;
      try {
        parsed = JSON.parse(content);
      } catch {
        throw new LanguageModelError(`${upstream} returned text that is not JSON where ${request.name} was asked for`);
      }
      const result = request.schema.safeParse(parsed);
      if (!result.success) {
        const issue = result.error.issues[0]!;
        throw new LanguageModelError(
          `${upstream} returned a ${request.name} that does not match its schema (${issue.path.join('.') || 'root'}: ${issue.message})`.slice(
            0,
            500,
          ),
        );
      }
      return result.data;
    },
  };
}

/** zod's JSON schema of `schema`: objects closed and every field required, as strict mode asks. */
function strictSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...body } = z.toJSONSchema(schema, { target: 'draft-7' });
  return body;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/**
 * The platform's model: URL and name from the settings, the key read at run time from the voice
 * providers' secret. Not configured: a 503 naming what to configure.
 */
export async function platformModel(): Promise<LanguageModel> {
  const apiUrl = optionalSetting('LLM_API_URL');
  let apiKey: string | undefined;
  try {
    apiKey = apiUrl ? (await getSecretFields('VOICE_PROVIDERS_SECRET_ARN', ['llmApiKey'])).llmApiKey : undefined;
  } catch (error) {
    if (!(error instanceof SecretNotReadyError)) throw error;
  }
  if (!apiUrl || !apiKey) {
    throw new LanguageModelUnavailableError(
      `The platform language model is not configured (${apiUrl ? 'no llmApiKey in the voice providers secret' : 'LLM_API_URL unset'}): put the key into the llmApiKey field of the ` +
        'VoiceProviders secret (and set the llmApiUrl context value for a provider other than OpenAI), or set your own key with PUT /model-key',
    );
  }
  return remoteModel({
    apiUrl,
    apiKey,
    model: optionalSetting('LLM_MODEL') ?? 'gpt-4o-mini',
    upstream: 'The platform language model',
  });
}
