import { inject } from 'vitest';

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  key?: string;
  /** Serialised as JSON unless it is already a string. */
  body?: unknown;
  headers?: Record<string, string>;
}

/** A small HTTP client for the API under test (local gateway or a deployed stack). */
export function apiClient(baseUrl = inject('baseUrl')) {
  async function request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.key) headers['X-API-Key'] = options.key;
    let body: string | undefined;
    if (options.body !== undefined) {
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      headers['Content-Type'] ??= 'application/json';
    }
    const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    if (response.headers.get('content-type')?.includes('json')) parsed = JSON.parse(text);
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  }
  return { baseUrl, request };
}

export interface TestOrganization {
  organizationId: number;
  key: string;
  keyId: string;
}

/**
 * A fresh organization with an API key, created the way the operator CLI does (the API has no
 * endpoint for it). Every test file works in its own organizations, so files run in parallel.
 */
export async function newOrganization(
  name = 'Test organization',
  maxConcurrentCalls?: number,
): Promise<TestOrganization> {
  Object.assign(process.env, inject('stackEnv'));
  const organizations = await import('../../shared/services/organizations.ts');
  const { organization, apiKey } = await organizations.createOrganization({ name, maxConcurrentCalls });
  return { organizationId: organization.id, key: apiKey.key, keyId: apiKey.id };
}

export async function revokeKey(keyId: string): Promise<void> {
  Object.assign(process.env, inject('stackEnv'));
  const organizations = await import('../../shared/services/organizations.ts');
  await organizations.revokeApiKey(keyId);
}

/** Adds `usd` to the organization's balance (as the operator's billing does), and sets its plan when given. */
export async function fundOrganization(orgId: number, usd: number, plan?: 'paid'): Promise<void> {
  Object.assign(process.env, inject('stackEnv'));
  const organizations = await import('../../shared/repositories/organizations.ts');
  await organizations.addBalance(orgId, usd);
  if (plan) await organizations.setPlan(orgId, plan);
}

/**
 * Suites that need the local stack's simulated providers (telephony, media, spreadsheets) or its
 * emulators directly; they are skipped when the tests target a deployed stack (API_BASE_URL).
 */
export const needsLocalStack = Boolean(process.env.API_BASE_URL);
