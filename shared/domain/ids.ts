import { randomInt } from 'node:crypto';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Uniformly random letters and digits from the CSPRNG (randomInt avoids modulo bias). */
export function randomAlphanumeric(length: number): string {
  let out = '';
  for (let i = 0; i < length; i += 1) out += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)];
  return out;
}

/** `agent_` + 20 alphanumerics, the recommended public form of an agent id. */
export const newPublicAgentId = (): string => `agent_${randomAlphanumeric(20)}`;
