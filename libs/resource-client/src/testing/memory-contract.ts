/// <reference types="jest" />
// The shared MemoryPort contract (test support): `InMemoryMemory` (unit) and `NatsMemory` over a real
// resource-service (int) run this one suite. Only *.spec.ts files import it.
import type { MemoryItem, MemoryPort, StoredInteraction } from '@novelrag/agenturn';

/** One MemoryPort under test and how to release it. */
export interface MemoryHarness {
  readonly memory: MemoryPort;
  close(): Promise<void>;
}

export interface MemoryContractFactory {
  /** Called once per suite: cases share the memory and keep to thread ids of their own. */
  create(): Promise<MemoryHarness>;
}

const exchange = (
  threadId: string,
  goalId: string,
  question: string,
  answer: string,
  more: Partial<StoredInteraction> = {},
): StoredInteraction => ({ threadId, goalId, question, answer, ...more });

/** The rank of the first item of `goalId` (Infinity when absent). */
const rankOf = (items: readonly MemoryItem[], goalId: string): number => {
  const index = items.findIndex((item) => item.goalId === goalId);
  return index === -1 ? Infinity : index;
};

/** Registers the contract as a Jest `describe` block named `MemoryPort contract: <name>`. */
export function describeMemoryPortContract(name: string, factory: MemoryContractFactory): void {
  describe(`MemoryPort contract: ${name}`, () => {
    let harness: MemoryHarness | undefined;
    let counter = 0;
    const memory = (): MemoryPort => {
      if (!harness) throw new Error('the MemoryPort harness was not created');
      return harness.memory;
    };
    const thread = (base: string) => `${base}-${++counter}`;
    beforeAll(async () => {
      harness = await factory.create();
    });
    afterAll(async () => {
      await harness?.close();
    });

    it('keeps threads apart: memories and summaries of one thread never show in another', async () => {
      const [a, b] = [thread('iso-a'), thread('iso-b')];
      await memory().storeInteraction(
        exchange(a, 'g-a', 'Who leads the Azure Sect?', 'Elder Lin.', { summary: 'A' }),
      );
      await memory().storeInteraction(
        exchange(b, 'g-b', 'Who leads the Azure Sect?', 'Nobody.', { summary: 'B' }),
      );
      const found = await memory().retrieveRelevant('Azure Sect', a);
      expect(found.length).toBeGreaterThan(0);
      expect(found.every((item) => item.threadId === a && item.goalId === 'g-a')).toBe(true);
      expect(await memory().sessionSummary(a)).toBe('A');
      expect(await memory().sessionSummary(b)).toBe('B');
      expect(await memory().retrieveRelevant('Azure Sect', thread('iso-empty'))).toEqual([]);
    });

    it("replaces a goal's exchange and facts when the goal stores again", async () => {
      const t = thread('replace');
      await memory().storeInteraction(
        exchange(t, 'g-1', 'Where is the Azure Sect?', 'In the south.', {
          facts: ['The user likes the south'],
        }),
      );
      await memory().storeInteraction(exchange(t, 'g-1', 'Where is the Azure Sect?', 'In the north.'));
      const found = await memory().retrieveRelevant('Where is the Azure Sect south north', t, { limit: 10 });
      expect(found.map((item) => [item.kind, item.goalId])).toEqual([['episodic', 'g-1']]);
      expect(found[0]?.text).toContain('In the north.');
      expect(found[0]?.text).toContain('Where is the Azure Sect?');
      expect(found[0]?.id).toEqual(expect.any(String));
      expect(Number.isNaN(Date.parse(found[0]?.createdAt ?? ''))).toBe(false);
    });

    it('keeps one summary per thread: null at first, kept when absent, replaced when given', async () => {
      const t = thread('summary');
      expect(await memory().sessionSummary(t)).toBeNull();
      await memory().storeInteraction(exchange(t, 'g-1', 'q one?', 'a', { summary: 'first summary' }));
      await memory().storeInteraction(exchange(t, 'g-2', 'q two?', 'a'));
      expect(await memory().sessionSummary(t)).toBe('first summary');
      await memory().storeInteraction(exchange(t, 'g-3', 'q three?', 'a', { summary: '第二个摘要' }));
      expect(await memory().sessionSummary(t)).toBe('第二个摘要');
    });

    it('forgets a thread: the count includes the summary, a second forget removes nothing', async () => {
      const [t, other] = [thread('forget'), thread('forget-other')];
      await memory().storeInteraction(
        exchange(t, 'g-1', 'What did I decide?', 'To spare the heron.', {
          summary: 's',
          facts: ['f one', 'f two'],
        }),
      );
      await memory().storeInteraction(exchange(other, 'g-2', 'What did I decide?', 'Nothing yet.'));
      expect(await memory().forget(t)).toBe(4);
      expect(await memory().forget(t)).toBe(0);
      expect(await memory().sessionSummary(t)).toBeNull();
      expect(await memory().retrieveRelevant('What did I decide', t)).toEqual([]);
      expect(await memory().retrieveRelevant('What did I decide', other)).toHaveLength(1);
    });

    it('ranks a relevant memory above an irrelevant one, in English and in Chinese, within the limit', async () => {
      const t = thread('rank');
      await memory().storeInteraction(
        exchange(t, 'g-weather', 'How is the weather at the harbour?', 'Foggy.'),
      );
      await memory().storeInteraction(
        exchange(t, 'g-sect', 'Who founded the Azure Sect?', 'Master Qingyun founded it.'),
      );
      await memory().storeInteraction(exchange(t, 'g-food', '港口的天气怎么样？', '一直下雨。'));
      await memory().storeInteraction(exchange(t, 'g-teacher', '余归的师父是谁？', '余归的师父是青云子。'));
      const en = await memory().retrieveRelevant('founder of the Azure Sect', t);
      expect(rankOf(en, 'g-sect')).toBe(0);
      expect(rankOf(en, 'g-sect')).toBeLessThan(rankOf(en, 'g-weather'));
      const zh = await memory().retrieveRelevant('余归的师父', t);
      expect(rankOf(zh, 'g-teacher')).toBe(0);
      expect(rankOf(zh, 'g-teacher')).toBeLessThan(rankOf(zh, 'g-food'));
      expect(await memory().retrieveRelevant('Azure Sect 余归', t, { limit: 1 })).toHaveLength(1);
    });

    it('keeps the facts a user stated as semantic memories', async () => {
      const t = thread('facts');
      await memory().storeInteraction(
        exchange(t, 'g-1', 'Remember this', 'Noted.', { facts: ['My heroine is called 林雾'] }),
      );
      const found = await memory().retrieveRelevant('heroine 林雾', t);
      expect(found[0]).toMatchObject({ kind: 'semantic', text: 'My heroine is called 林雾', goalId: 'g-1' });
    });
  });
}
