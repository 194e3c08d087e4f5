/// <reference types="jest" />
import { type ContractContext, expectCode } from './context';
import { writeWorld } from './fixtures';

export function registerReadCases(ctx: () => ContractContext): void {
  it('find: the root lists aspects, an aspect its root ids, an element its data and children', async () => {
    const { service, unique } = ctx();
    const name = unique('people');
    const { yu, skill } = await writeWorld(ctx(), name);
    const root = await service.find({ uri: '/' });
    expect(root.kind === 'root' && root.aspects.map((a) => a.name)).toContain(name);
    await expect(service.find({ uri: `/${name}` })).resolves.toMatchObject({
      kind: 'aspect',
      aspect: { name, description: 'People of the story', childrenKeys: ['skills'] },
      rootIds: ['yu_gui', 'lin_wu'],
    });
    await expect(service.find({ uri: yu })).resolves.toMatchObject({
      kind: 'element',
      uri: yu,
      element: {
        id: 'yu_gui',
        aspect: name,
        properties: { name: '余归', role: 'protagonist' },
        children: { skills: [{ id: 'ash_sword', uri: skill }] },
      },
    });
    await expect(service.find({ uri: skill })).resolves.toMatchObject({ kind: 'element' });
  });

  it('find: an unknown URI is NOT_FOUND, a malformed one VALIDATION_FAILED, nothing else changes', async () => {
    const { service, unique } = ctx();
    await expectCode(service.find({ uri: `/${unique('nowhere')}/nobody` }), 'NOT_FOUND');
    await expectCode(service.find({ uri: 'no slash' }), 'VALIDATION_FAILED');
  });

  it('search: an exact name ranks first, within the aspect asked for and the limit', async () => {
    const { service, unique } = ctx();
    const name = unique('people');
    const { yu } = await writeWorld(ctx(), name);
    const { hits } = await service.search({ query: '余归', aspect: name, limit: 5 });
    expect(hits[0]).toMatchObject({ uri: yu, element: { properties: { name: '余归' } } });
    expect(hits.every((hit) => hit.uri.startsWith(`/${name}/`))).toBe(true);
    expect((await service.search({ query: 'Lin Wu', aspect: name, limit: 1 })).hits).toHaveLength(1);
    await expectCode(service.search({ query: '  ' }), 'VALIDATION_FAILED');
  });

  it('segments: hidden properties and excluded URIs never leave the service; unknown URIs are missing', async () => {
    const { service, unique } = ctx();
    const name = unique('people');
    const { yu, lin } = await writeWorld(ctx(), name);
    const reply = await service.segments({
      segments: [
        { uri: yu, excludedProperties: ['secret'] },
        { uri: `/${name}/ghost`, excludedProperties: [] },
        { uri: `/${name}`, excludedProperties: [] },
      ],
      excludedUris: [lin],
    });
    expect(reply.missing).toEqual([`/${name}/ghost`]);
    expect(reply.segments).toHaveLength(2);
    const [element, aspect] = reply.segments;
    expect(element).toMatchObject({ kind: 'element', uri: yu, excludedProperties: ['secret'] });
    expect(element?.kind === 'element' && element.properties).toEqual({ name: '余归', role: 'protagonist' });
    expect(element?.kind === 'element' && element.relationships).toEqual({});
    expect(aspect).toMatchObject({ kind: 'aspect', name, rootIds: ['yu_gui'] });
  });

  it('aspectsList and export show what was written; export of an unknown aspect is NOT_FOUND', async () => {
    const { service, unique } = ctx();
    const name = unique('people');
    await writeWorld(ctx(), name);
    const { aspects } = await service.aspectsList();
    expect(aspects.find((a) => a.name === name)).toMatchObject({ childrenKeys: ['skills'] });
    const exported = await service.export({ aspects: [name] });
    expect(exported.aspects).toHaveLength(1);
    expect(exported.aspects[0]?.elements.map((e) => e.id)).toEqual(['yu_gui', 'lin_wu']);
    expect(exported.aspects[0]?.elements[0]?.children?.['skills']?.[0]?.id).toBe('ash_sword');
    await expectCode(service.export({ aspects: [unique('absent')] }), 'NOT_FOUND');
  });

  it('a request whose signal is already aborted is CANCELLED', async () => {
    const controller = new AbortController();
    controller.abort();
    await expectCode(ctx().service.find({ uri: '/' }, controller.signal), 'CANCELLED');
    await expectCode(ctx().service.aspectsList({}, controller.signal), 'CANCELLED');
  });
}
