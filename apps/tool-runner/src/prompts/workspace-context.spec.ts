import type { SegmentData } from '@novelrag/contracts';
import { renderForContent, renderForOperations } from './workspace-context';

const segments: SegmentData[] = [
  { kind: 'root', uri: '/', aspects: ['character'] },
  {
    kind: 'aspect',
    uri: '/character',
    name: 'character',
    metadata: { description: 'people' },
    excludedProperties: [],
    rootIds: ['yu_gui'],
  },
  {
    kind: 'element',
    uri: '/character/yu_gui',
    id: 'yu_gui',
    aspect: 'character',
    properties: { name: '余归' },
    excludedProperties: ['secret'],
    childIds: { skills: ['ash_sword'], friends: [] },
    relationships: { '/faction/azure': ['member of', 'heir'] },
  },
  {
    kind: 'element',
    uri: '/character/empty',
    id: 'empty',
    aspect: 'character',
    properties: {},
    excludedProperties: [],
    childIds: {},
    relationships: {},
  },
];

describe('workspace rendering for tool prompts', () => {
  it('shows properties, non-empty child ids and relations when building operations', () => {
    const text = renderForOperations(segments);
    expect(text).toContain('### Resource /character/yu_gui');
    expect(text).toContain('"name": "余归"');
    expect(text).toContain('Child ids (skills): ash_sword');
    expect(text).not.toContain('(friends)');
    expect(text).toContain('Related to /faction/azure: member of heir');
    expect(text).toContain('top_child_resources');
    expect(text).not.toContain('/character/empty');
    expect(text).not.toContain('secret');
  });

  it('leaves children out for content prompts, and speaks Chinese for zh', () => {
    const text = renderForContent(segments, 'zh');
    expect(text).toContain('### 资源 /character/yu_gui');
    expect(text).toContain('关联到 /faction/azure');
    expect(text).not.toContain('ash_sword');
    expect(renderForContent([], 'en')).toBe('(no resources loaded)');
  });
});
