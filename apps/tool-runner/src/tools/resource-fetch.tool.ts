import { toolError, toolResult } from '@novelrag/agenturn';
import { findOrNull } from '@novelrag/resource-client';
import { isResourceUri } from '@novelrag/contracts';
import type { HostedTool } from '@novelrag/tool-kit';
import { findView, json } from '../prompts/views';
import type { ToolDeps } from './tool-deps';

/** Reads one resource: `/` lists the aspects, `/{aspect}` an aspect with its root ids, deeper URIs an element. */
export function resourceFetchTool(deps: ToolDeps): HostedTool {
  return {
    name: 'ResourceFetchTool',
    description:
      'Fetch one resource by URI: "/" lists all aspects, "/<aspect>" shows an aspect (its metadata and the ids of its ' +
      'top-level elements), "/<aspect>/<id>[/<child id>...]" shows an element with its properties, relationships and ' +
      'child ids.',
    outputDescription: 'JSON of the resource; for "/" a JSON list of aspects.',
    inputSchema: {
      type: 'object',
      properties: {
        uri: { type: 'string', minLength: 1, description: 'Resource URI, e.g. /character/yu_gui' },
      },
      required: ['uri'],
      additionalProperties: false,
    },
    timeoutMs: 30_000,
    hints: { readOnly: true, destructive: false, idempotent: true },
    async call(ctx, params, signal) {
      const uri = String(params['uri']);
      if (!isResourceUri(uri)) {
        ctx.error(`invalid resource URI: ${uri}`);
        return toolError(`"${uri}" is not a valid resource URI`, 'INVALID_URI');
      }
      const found = await findOrNull(deps.resources, uri, signal);
      if (!found) {
        ctx.error(`resource not found: ${uri}`);
        return toolError(`resource ${uri} does not exist`, 'NOT_FOUND');
      }
      return toolResult(json(findView(found)));
    },
  };
}
