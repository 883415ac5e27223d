/**
 * The Lambda functions behind the API: one per endpoint group, plus the authorizer. The CDK stack
 * creates one NodejsFunction per entry and grants it exactly the access listed; the local gateway
 * imports the same entry files.
 */
export interface FunctionGroup {
  /** Handler module, relative to the repository root; it must export `handler`. */
  entry: string;
  description: string;
  /** Least-privilege access to the stack's resources. */
  access: {
    table?: 'read' | 'readWrite';
    bucket?: 'read' | 'readWrite';
    stateMachines?: boolean;
    eventBus?: boolean;
  };
  memorySize?: number;
  timeoutSeconds?: number;
  /** Folders copied next to the bundle (`from` relative to the repo root, `to` relative to the bundle). */
  copyFiles?: { from: string; to: string }[];
}

export const AUTHORIZER: FunctionGroup = {
  entry: 'functions/authorizer/handler.ts',
  description: 'API-key Lambda authorizer (X-API-Key)',
  access: { table: 'read' },
  memorySize: 256,
  timeoutSeconds: 5,
};

export const FUNCTION_GROUPS = {
  agents: {
    entry: 'functions/agents/handler.ts',
    description: 'Agents: create, list, read, update, archive',
    access: { table: 'readWrite' },
  },
  doNotCall: {
    entry: 'functions/do-not-call/handler.ts',
    description: 'Do-not-call list: add, list, remove',
    access: { table: 'readWrite' },
  },
  docs: {
    entry: 'functions/docs/handler.ts',
    description: 'Public OpenAPI document and interactive reference',
    access: {},
    copyFiles: [{ from: 'node_modules/swagger-ui-dist', to: 'swagger-ui' }],
  },
  fallback: {
    entry: 'functions/fallback/handler.ts',
    description: 'Unknown route (404) and wrong method (405) answers',
    access: {},
    memorySize: 128,
  },
} as const satisfies Record<string, FunctionGroup>;

export type FunctionGroupName = keyof typeof FUNCTION_GROUPS;
