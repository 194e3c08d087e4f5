import type { ApplyRequest } from '@novelrag/contracts';
import type { ContractContext } from './context';

/**
 * Writes an aspect `name` with 余归 (a child skill, a relation to Lin Wu) and Lin Wu, in one apply. Returns the
 * element URIs.
 */
export async function writeWorld(ctx: ContractContext, name: string) {
  const yu = `/${name}/yu_gui`;
  const lin = `/${name}/lin_wu`;
  const request: ApplyRequest = {
    operations: [
      {
        type: 'aspect.create',
        name,
        description: 'People of the story',
        childrenKeys: ['skills'],
        metadata: { genre: 'wuxia' },
        elements: [
          {
            id: 'yu_gui',
            properties: { name: '余归', role: 'protagonist', secret: 'hidden past' },
            relationships: { [lin]: ['sworn sister of'] },
            children: { skills: [{ id: 'ash_sword', properties: { name: 'Ash Sword Art' } }] },
          },
          { id: 'lin_wu', properties: { name: 'Lin Wu', role: 'rival' } },
        ],
      },
    ],
  };
  await ctx.service.apply(request);
  return { yu, lin, skill: `${yu}/ash_sword` };
}
