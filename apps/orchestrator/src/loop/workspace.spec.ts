import { ToolCatalog } from '@novelrag/agenturn';
import { emptyWorkspace } from '@novelrag/contracts';
import { legacyImport, linkResources, world } from './test-support/world';
import { ResourceContext } from './workspace';

describe('ResourceContext (thread workspace)', () => {
  it('starts from the root, sorts mentioned segments first and keeps the rest in insertion order', () => {
    const context = new ResourceContext(world());
    for (const uri of ['/character', '/faction', '/character/yu_gui']) context.queryResource(uri);
    context.sortResources(['/character/yu_gui', '/unknown', '/faction']);
    expect(context.toState().segments.map((s) => s.uri)).toEqual([
      '/character/yu_gui',
      '/faction',
      '/',
      '/character',
    ]);
  });

  it('hides resources (never the root), and an explicit query shows a hidden one again; search hits do not', async () => {
    const context = new ResourceContext(world());
    context.queryResource('/character/yu_gui');
    context.excludeResource('/character/yu_gui');
    context.excludeResource('/');
    expect(context.toState().excludedUris).toEqual(['/character/yu_gui']);
    await context.search('余归');
    // The hidden element stays hidden; the sect (found through her relationship to it) is shown.
    expect(context.toolWorkspace().segments.map((s) => s.uri)).toEqual(['/', '/faction/azure_sect']);
    context.queryResource('/character/yu_gui');
    expect(context.toState().excludedUris).toEqual([]);
    expect(context.toolWorkspace().segments.map((s) => s.uri)).toEqual([
      '/',
      '/character/yu_gui',
      '/faction/azure_sect',
    ]);
  });

  it('excluding a property loads the segment; the snapshot moves missing URIs to nonexistentUris', async () => {
    const context = new ResourceContext(world());
    context.excludeProperty('/character/yu_gui', 'secret');
    context.queryResource('/character/ghost');
    const snapshot = await context.snapshot();
    expect(snapshot.segments.map((s) => s.uri)).toEqual(['/', '/character/yu_gui']);
    expect(snapshot.nonexistentUris).toEqual(['/character/ghost']);
    expect(context.toState().segments).toEqual([
      { uri: '/', excludedProperties: [] },
      { uri: '/character/yu_gui', excludedProperties: ['secret'] },
    ]);
  });

  it('expands only available catalog tools and collapses by name', () => {
    const context = new ResourceContext(world());
    const catalog = new ToolCatalog([linkResources, { tool: legacyImport, available: false }]);
    expect(
      context.expandTools(['link_resources', 'legacy_import', 'ghost', 'link_resources'], catalog),
    ).toEqual(['link_resources']);
    context.collapseTools(['link_resources']);
    expect(context.expandedTools).toEqual([]);
  });

  it('caps the segments at the contract bound and restores a checkpointed state as it was', () => {
    const context = new ResourceContext(world());
    for (let i = 0; i < 250; i += 1) context.queryResource(`/character/c${i}`);
    const state = context.toState();
    expect(state.segments).toHaveLength(200);
    expect(new ResourceContext(world(), state).toState()).toEqual(state);
    expect(new ResourceContext(world(), { ...emptyWorkspace(), segments: [] }).toState().segments).toEqual([
      { uri: '/', excludedProperties: [] },
    ]);
  });
});
