import { resourcePath, type HttpMethod, type Route } from './route.ts';

export type RouteMatch =
  | { kind: 'route'; route: Route; resource: string; pathParameters: Record<string, string> }
  /** The path exists but not with this method: 405 with these methods in `Allow`. */
  | { kind: 'method-not-allowed'; resource: string; allowed: HttpMethod[] }
  | { kind: 'not-found' };

interface CompiledResource {
  resource: string;
  segments: string[];
  routes: Route[];
}

const isParameter = (segment: string) => segment.startsWith('{') && segment.endsWith('}');

function bind(resource: CompiledResource, segments: string[]): Record<string, string> | undefined {
  if (resource.segments.length !== segments.length) return undefined;
  const parameters: Record<string, string> = {};
  for (const [index, pattern] of resource.segments.entries()) {
    const segment = segments[index]!;
    if (isParameter(pattern)) {
      if (segment === '') return undefined;
      parameters[pattern.slice(1, -1)] = segment;
    } else if (pattern !== segment) return undefined;
  }
  return parameters;
}

/** Literal segments beat parameters, left to right, as in API Gateway (`/agents/summary` before `/agents/{agent_id}`). */
function specificity(resource: CompiledResource): string {
  return resource.segments.map((segment) => (isParameter(segment) ? '0' : '1')).join('');
}

/**
 * Resolves a request path (with the `/api/v1` prefix, undecoded) against the route table the way
 * API Gateway resolves resources; shared by the local gateway and the fallback function.
 */
export function createRouteMatcher(routes: readonly Route[]) {
  const byResource = new Map<string, CompiledResource>();
  for (const route of routes) {
    const resource = resourcePath(route);
    const compiled = byResource.get(resource) ?? { resource, segments: resource.split('/').slice(1), routes: [] };
    compiled.routes.push(route);
    byResource.set(resource, compiled);
  }
  const resources = [...byResource.values()].sort((a, b) => specificity(b).localeCompare(specificity(a)));

  return (method: string, path: string): RouteMatch => {
    let segments: string[];
    try {
      segments = path.split('/').slice(1).map(decodeURIComponent);
    } catch {
      return { kind: 'not-found' };
    }
    for (const resource of resources) {
      const pathParameters = bind(resource, segments);
      if (!pathParameters) continue;
      const route = resource.routes.find((candidate) => candidate.method === method);
      if (route) return { kind: 'route', route, resource: resource.resource, pathParameters };
      return {
        kind: 'method-not-allowed',
        resource: resource.resource,
        allowed: resource.routes.map((candidate) => candidate.method),
      };
    }
    return { kind: 'not-found' };
  };
}
