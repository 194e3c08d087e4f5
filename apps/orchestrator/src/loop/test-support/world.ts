import { RecordingExecutionContext, fakeTool } from '@novelrag/agenturn/testing';
import { ToolCatalog, type PursuitProgress, userGoal } from '@novelrag/agenturn';
import { NunjucksPromptRenderer, findTemplatesRoot } from '@novelrag/llm';
import { InMemoryResources } from './in-memory-resources';

/** A small world for the loop's unit tests: 余归 of the Azure Sect, two writing tools and one unavailable tool. */
export function world(): InMemoryResources {
  return new InMemoryResources(
    [InMemoryResources.aspect('character'), InMemoryResources.aspect('faction')],
    [
      {
        uri: '/character/yu_gui',
        properties: { name: '余归', role: 'protagonist', secret: 'hidden past' },
        relationships: { '/faction/azure_sect': ['disciple of'] },
      },
      { uri: '/faction/azure_sect', properties: { name: 'Azure Sect', motto: 'Still water' } },
    ],
  );
}

export const createElement = fakeTool({
  name: 'create_element',
  description: 'Creates an element in an aspect',
  prerequisites: 'The aspect exists',
  outputDescription: 'A summary of what was created',
  inputSchema: {
    type: 'object',
    properties: { uri: { type: 'string' }, name: { type: 'string' } },
    required: ['uri', 'name'],
    additionalProperties: false,
  },
});

export const linkResources = fakeTool({
  name: 'link_resources',
  description: 'Writes a relationship between two resources',
  inputSchema: {
    type: 'object',
    properties: { source: { type: 'string' }, target: { type: 'string' } },
    required: ['source', 'target'],
  },
});

export const legacyImport = fakeTool({ name: 'legacy_import', description: 'Imports old data' });

export function catalog(): ToolCatalog {
  return new ToolCatalog([
    { tool: createElement, available: true },
    { tool: linkResources, available: true },
    { tool: legacyImport, available: false },
  ]);
}

export function progress(description = 'Report who 余归 is'): PursuitProgress {
  return { goal: userGoal(description, description), executedSteps: [] };
}

export function renderer(): NunjucksPromptRenderer {
  return new NunjucksPromptRenderer({ root: findTemplatesRoot({}) });
}

export function ctx(): RecordingExecutionContext {
  return new RecordingExecutionContext();
}
