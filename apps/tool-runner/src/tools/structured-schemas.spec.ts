import { toProviderJsonSchema } from '@novelrag/llm';
import type { z } from 'zod';
import { openObjects } from '../test/strict-schema';
import { AspectMetadataDraft } from './aspect-create.tool';
import { UpdatedRelations } from './relation-write.tool';
import { resourceOperationsSchema, singleOperationSchema } from './resource-write/operation-schema';
import {
  BacklogItems,
  ContentPerspectives,
  ProposalRanking,
  RelationUpdate,
  RelationUpdateUris,
  RequiredUpdates,
} from './resource-write/schemas';
import { DocumentGrades } from './retrieval/grade.tool';
import { QueryRewrite } from './retrieval/query-rewrite.tool';
import { DocumentRanking } from './retrieval/rerank.tool';

const keysOf = (uri: string) => (uri.startsWith('/character') ? ['skills'] : []);

/** Every structured output of the built-in tools, by the schema name sent to the provider. */
const SCHEMAS: Record<string, z.ZodType> = {
  aspect_metadata: AspectMetadataDraft,
  updated_relations: UpdatedRelations,
  content_perspectives: ContentPerspectives,
  proposal_ranking: ProposalRanking,
  resource_operations: resourceOperationsSchema(keysOf),
  required_updates: RequiredUpdates,
  perspective_update_operation: singleOperationSchema(keysOf),
  relation_update_uris: RelationUpdateUris,
  relation_update: RelationUpdate,
  backlog_items: BacklogItems,
  document_ranking: DocumentRanking,
  document_grades: DocumentGrades,
  query_rewrite: QueryRewrite,
};

const op = (over: Record<string, unknown>) => ({
  type: 'splice',
  uri: '/character',
  data_json: null,
  children_key: null,
  start: 0,
  end: 0,
  elements_json: '[]',
  ...over,
});

describe('structured outputs of the built-in tools', () => {
  it.each(Object.entries(SCHEMAS))('%s fits the strict structured-output subset', (name, schema) => {
    expect(openObjects(toProviderJsonSchema(schema, name))).toEqual([]);
  });

  it('converts the persisted element form, nested children included, into contract operations', () => {
    const parsed = resourceOperationsSchema(keysOf).parse({
      operations: [
        op({
          elements_json: JSON.stringify([
            {
              id: 'yu_gui',
              name: '余归',
              relationships: { '/faction/azure': ['member'] },
              skills: [{ id: 'ash' }],
            },
          ]),
        }),
        op({
          type: 'property',
          uri: '/character/yu_gui',
          data_json: '{"age": 19, "alias": null}',
          start: null,
          end: null,
        }),
      ],
    });
    expect(parsed).toEqual([
      {
        type: 'splice',
        location: { uri: '/character', childrenKey: null },
        start: 0,
        end: 0,
        data: [
          {
            id: 'yu_gui',
            properties: { name: '余归' },
            relationships: { '/faction/azure': ['member'] },
            children: { skills: [{ id: 'ash', properties: {} }] },
          },
        ],
      },
      { type: 'property', uri: '/character/yu_gui', data: { age: 19, alias: null } },
    ]);
  });

  it.each([
    ['an element without id', op({ elements_json: '[{"name": "x"}]' }), 'id is required'],
    ['text that is not JSON', op({ type: 'property', data_json: '{oops' }), 'not valid JSON'],
    [
      'a children key the aspect lacks',
      op({ uri: '/character/yu_gui', children_key: 'friends' }),
      'children_key',
    ],
    ['a root splice with a children key', op({ children_key: 'skills' }), 'children_key null'],
    [
      'a reserved property',
      op({ type: 'property', uri: '/character/a', data_json: '{"id": "b"}' }),
      'cannot set id',
    ],
    [
      'a child list set as a property',
      op({ type: 'property', uri: '/character/a', data_json: '{"skills": []}' }),
      'splice',
    ],
  ])('names what is wrong with %s, for the model to fix', (_what, bad, message) => {
    const result = resourceOperationsSchema(keysOf).safeParse({ operations: [bad] });
    expect(result.success).toBe(false);
    expect(JSON.stringify(result.error?.issues)).toContain(message);
  });
});
