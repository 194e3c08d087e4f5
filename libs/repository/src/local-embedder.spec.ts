import { LocalEmbedder } from './local-embedder';
import { cosine } from './scoring';

describe('LocalEmbedder', () => {
  it('is deterministic, L2-normalised, of the configured dimension', async () => {
    const embedder = new LocalEmbedder();
    const [a, b] = await embedder.embed(['余归 joins the Azure Sect', '余归 joins the Azure Sect']);
    expect(a).toHaveLength(256);
    expect(a).toEqual(b);
    expect(Math.hypot(...(a as number[]))).toBeCloseTo(1, 10);
    expect((await new LocalEmbedder(64).embed(['x']))[0]).toHaveLength(64);
  });

  it('puts texts sharing CJK n-grams closer than unrelated ones', () => {
    const embedder = new LocalEmbedder();
    const query = embedder.embedOne('余归');
    const related = embedder.embedOne('{"id":"yu_gui","name":"余归","uri":"/character/yu_gui"}');
    const unrelated = embedder.embedOne('{"id":"lin","name":"林默","uri":"/character/lin"}');
    expect(cosine(query, related)).toBeGreaterThan(cosine(query, unrelated));
  });

  it('gives a zero vector for empty text', () => {
    expect(new LocalEmbedder(8).embedOne('').every((x) => x === 0)).toBe(true);
    expect(() => new LocalEmbedder(0)).toThrow(RangeError);
  });
});
