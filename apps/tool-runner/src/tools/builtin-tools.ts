import type { HostedTool } from '@novelrag/tool-kit';
import { aspectCreateTool } from './aspect-create.tool';
import { relationWriteTool } from './relation-write.tool';
import { resourceFetchTool } from './resource-fetch.tool';
import { resourceSearchTool } from './resource-search.tool';
import { resourceWriteTool } from './resource-write/resource-write.tool';
import { gradeTool } from './retrieval/grade.tool';
import { memoryRetrieveTool } from './retrieval/memory-retrieve.tool';
import { queryRewriteTool } from './retrieval/query-rewrite.tool';
import { rerankTool } from './retrieval/rerank.tool';
import { vectorRetrieveTool } from './retrieval/vector-retrieve.tool';
import type { ToolDeps } from './tool-deps';
import { imageGenerationTool } from './web/image-generation.tool';
import { imageSearchTool } from './web/image-search.tool';
import { randomNumbersTool } from './web/random-numbers.tool';
import { webExtractTool } from './web/web-extract.tool';
import { webSearchTool } from './web/web-search.tool';

/** The built-in resource, retrieval, web, image and random tools, in the order they are listed. */
export function builtinTools(deps: ToolDeps): HostedTool[] {
  return [
    aspectCreateTool(deps),
    resourceWriteTool(deps),
    relationWriteTool(deps),
    resourceFetchTool(deps),
    resourceSearchTool(deps),
    vectorRetrieveTool(deps),
    rerankTool(deps),
    gradeTool(deps),
    queryRewriteTool(deps),
    memoryRetrieveTool(deps),
    randomNumbersTool(deps.random),
    webSearchTool(deps.web),
    webExtractTool(deps.web),
    imageGenerationTool(deps.web.images),
    imageSearchTool(deps.web),
  ];
}
