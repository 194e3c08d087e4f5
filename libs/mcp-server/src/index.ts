export { ApiCallError, NovelragApi, type NovelragApiOptions, type TraceItem } from './api-client';
export { MCP_SERVER_NAME, MCP_SERVER_VERSION, createNovelragMcpServer } from './server';
export { RESOURCE_SCHEME, repositoryPath, resourceUri } from './resources';
export { McpHttpSessions, type McpHttpSessionsOptions } from './http-sessions';
