/** What the authorizer decided for one identity (the API key). */
export type AuthorizerOutcome =
  | { kind: 'allow'; principalId: string; context: Record<string, unknown>; usageIdentifierKey?: string }
  | { kind: 'deny' }
  | { kind: 'unauthorized' };

/**
 * API Gateway's authorizer result cache: outcomes are kept per identity-source value for the TTL,
 * so a revoked key keeps working until its entry expires (0 disables the cache). Concurrent
 * requests with the same key share one authorizer call.
 */
export class AuthorizerCache {
  private readonly entries = new Map<string, { outcome: Promise<AuthorizerOutcome>; expiresAt: number }>();

  constructor(private readonly ttlSeconds: number) {}

  /** FlushStageAuthorizersCache. */
  clear(): void {
    this.entries.clear();
  }

  resolve(identity: string, authorize: () => Promise<AuthorizerOutcome>): Promise<AuthorizerOutcome> {
    if (this.ttlSeconds <= 0) return authorize();
    const now = Date.now();
    const cached = this.entries.get(identity);
    if (cached && cached.expiresAt > now) return cached.outcome;
    const outcome = authorize();
    this.entries.set(identity, { outcome, expiresAt: now + this.ttlSeconds * 1000 });
    // Failures of the authorizer itself are not outcomes: never cache them.
    outcome.catch(() => this.entries.delete(identity));
    return outcome;
  }
}
