import { type McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { NovelragApi } from './api-client';

/** The URI scheme of repository elements as MCP resources: `novelrag://character/yugui` = `/character/yugui`. */
export const RESOURCE_SCHEME = 'novelrag://';
/** Most resources a listing returns (aspects, then their root elements). */
const MAX_LISTED = 500;

/** The repository path of `novelrag://a/b` or `/a/b` (percent-escapes decoded: Chinese ids are normal). */
export function repositoryPath(uri: string): string {
  const rest = uri.startsWith(RESOURCE_SCHEME) ? uri.slice(RESOURCE_SCHEME.length) : uri;
  const path = `/${decodeURIComponent(rest).replace(/^\/+/, '').replace(/\/+$/, '')}`;
  return path;
}

/** The MCP URI of a repository path (`/character/yugui` → `novelrag://character/yugui`). */
export const resourceUri = (path: string) => `${RESOURCE_SCHEME}${path.replace(/^\/+/, '')}`;

interface Find {
  kind: 'root' | 'aspect' | 'element';
  aspects?: { name: string; description?: string | null }[];
  rootIds?: string[];
}

/** Lists aspects and their root elements (bounded), each as a `novelrag://` resource. */
async function listResources(api: NovelragApi) {
  const root = (await api.call('GET', '/v1/resources', undefined, { uri: '/' })) as Find;
  const resources: { uri: string; name: string; mimeType: string; description?: string }[] = [];
  for (const aspect of root.aspects ?? []) {
    if (resources.length >= MAX_LISTED) break;
    resources.push({
      uri: resourceUri(aspect.name),
      name: aspect.name,
      mimeType: 'application/json',
      ...(aspect.description ? { description: aspect.description } : {}),
    });
    const found = (await api.call('GET', '/v1/resources', undefined, { uri: `/${aspect.name}` })) as Find;
    for (const id of found.rootIds ?? []) {
      if (resources.length >= MAX_LISTED) break;
      resources.push({
        uri: resourceUri(`${aspect.name}/${id}`),
        name: `${aspect.name}/${id}`,
        mimeType: 'application/json',
      });
    }
  }
  return { resources };
}

/** Repository elements as MCP resources (`novelrag://<aspect>[/<id>…]`), listed and read through the REST API. */
export function registerResources(server: McpServer, api: NovelragApi): void {
  server.registerResource(
    'repository',
    new ResourceTemplate(`${RESOURCE_SCHEME}{+path}`, { list: () => listResources(api) }),
    {
      description: 'Knowledge repository aspects and elements (JSON), e.g. novelrag://character/yugui',
      mimeType: 'application/json',
    },
    async (uri) => {
      const path = repositoryPath(uri.href);
      const found = await api.call('GET', '/v1/resources', undefined, { uri: path });
      return {
        contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(found, null, 2) }],
      };
    },
  );
}
