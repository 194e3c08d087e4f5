import type { Page } from 'playwright-core';
import type { FakeOpenAIServer } from '@novelrag/testkit';
import {
  type BrowserSession,
  DEMO_REQUEST,
  type System,
  buildDashboard,
  chromiumAvailable,
  demoScenario,
  installRules,
  openBrowser,
  startSystem,
} from '@novelrag/testkit';

const API_KEY = 'dashboard-e2e-key-0123456789';
const THREAD = 'novel-1';
/** Kinds the demo goal's first step shows before it waits for the confirmation (so they arrive live). */
const FIRST_PHASES = [
  'goal.accepted',
  'goal.started',
  'assessment',
  'discovery.plan',
  'decision',
  'operation.dispatched',
];
const run = chromiumAvailable() ? describe : describe.skip;

/** The goal id of the detail page the browser shows. */
const shownGoalId = (page: Page) => decodeURIComponent(new URL(page.url()).hash.replace(/^#\/goals\//, ''));

/** Enters the API key the way a user does (the page asks after a 401). */
async function enterKey(page: Page, origin: string): Promise<void> {
  await page.goto(`${origin}/ui/`);
  await page.getByRole('alert').filter({ hasText: 'UNAUTHORIZED' }).waitFor();
  await page.getByRole('button', { name: 'API key' }).click();
  await page.getByLabel('API key').fill(API_KEY);
  await page.getByRole('button', { name: 'Use key' }).click();
  await page.getByText('No goals yet').waitFor();
}

/** Submits the demo request from the Submit view; returns the goal id of the page it lands on. */
async function submitDemo(page: Page): Promise<string> {
  await page.getByRole('link', { name: 'Submit' }).click();
  await page.getByLabel('goal text').fill(DEMO_REQUEST);
  await page.getByLabel('thread').fill(THREAD);
  await page.getByRole('button', { name: 'Submit goal' }).click();
  await page.waitForURL(/#\/goals\/g-/);
  return shownGoalId(page);
}

/** The little of the page's DOM a function evaluated in it reads (the test is compiled without the DOM library). */
interface PageDocument {
  querySelector(
    selector: string,
  ): { textContent: string | null; getAttribute(name: string): string | null } | null;
}

/**
 * Approves confirmations from the page until the goal completes (bounded: the demo asks once). Every wait is for a
 * state of the page: the next question's card (by its interaction id) or the completed status, then that question's
 * answer in the trace; never for a moment in which a button happens to be on screen.
 */
async function approveUntilCompleted(page: Page): Promise<void> {
  const answered = page.getByTestId('timeline').locator('[data-kind="interaction.answered"]');
  for (let i = 0; i < 5; i++) {
    const next = await page.waitForFunction(
      () => {
        const doc = (globalThis as unknown as { document: PageDocument }).document;
        const status = doc.querySelector('[data-testid="goal-status"]')?.textContent ?? '';
        if (status.includes('completed')) return { done: true as const };
        const card = doc.querySelector('[data-testid="pending"] [data-interaction]');
        return card ? { done: false as const, id: card.getAttribute('data-interaction')! } : null;
      },
      undefined,
      { timeout: 120_000, polling: 100 },
    );
    const state = await next.jsonValue();
    if (!state) continue; // not reached: waitForFunction resolves on a truthy value
    if (state.done) return;
    const before = await answered.count();
    await page.locator(`[data-interaction="${state.id}"]`).getByRole('button', { name: 'Approve' }).click();
    // The answer is in the trace (the card is gone with it): the next question, if any, is a new one.
    await answered.nth(before).waitFor({ timeout: 120_000 });
  }
  await page.getByTestId('goal-status').getByText('completed').waitFor({ timeout: 120_000 });
}

const QUESTION = 'Who leads the Azure Sect? (rag-dash)';
const ANSWER_PIECES = [
  'The Azure Sect ',
  'is led by ',
  'its elders. ',
  '<cite doc_id="doc_none" quote="elders">So the records say.</cite>',
];

/**
 * The model's part of a `rag` question answered on the direct path: the route, then the answer streamed in pieces once
 * `release` settles (so the page is surely following the goal before the pieces are published), then the memory update.
 */
/** Rules of the demo scenario that answer a `rag` goal (routing, retrieval, grading, the answer, memory). */
function isRagRule(rule: {
  when?: { schema?: string; tool?: string; contains?: readonly string[] };
}): boolean {
  const { schema, tool, contains = [] } = rule.when ?? {};
  return (
    ['query_route', 'document_grades', 'memory_update'].includes(schema ?? '') ||
    ['vector_retrieve', 'grade'].includes(tool ?? '') ||
    contains.includes('<output_rules>')
  );
}

function scriptRagQuestion(fake: FakeOpenAIServer, release: Promise<unknown>): void {
  const asks = (r: { body: unknown }) => JSON.stringify(r.body).includes('rag-dash');
  fake.always(
    { schemaName: 'query_route', where: asks },
    { json: { path: 'direct', reason: 'asked in the test' } },
  );
  fake.always(
    { kind: 'text', where: (r) => asks(r) && JSON.stringify(r.body).includes('output rules') },
    { after: release, then: { chunks: ANSWER_PIECES } },
  );
  fake.always(
    { schemaName: 'memory_update', where: asks },
    { json: { summary: 'Asked about the sect.', facts: [] } },
  );
}

// The dashboard in a real browser against the whole system (scripted model at the HTTP boundary, API keys on): submit
// the demo goal from the page, watch its phases arrive live, see a second goal of the thread appear in the table
// without a reload and cancel it from the page, approve the confirmation, see the goal complete, open what it wrote.
run('dashboard in Chromium', () => {
  let system: System;
  let browser: BrowserSession;

  beforeAll(async () => {
    buildDashboard();
    system = await startSystem('dash', {
      env: { NOVELRAG_AUTH_DISABLED: 'false', NOVELRAG_API_KEYS: API_KEY },
    });
    // The demo goal's rules only: the demo scenario also answers rag questions (the `--ask` demo), which would shadow
    // the rag question this suite scripts for itself (scriptRagQuestion).
    installRules(
      system.fake,
      demoScenario().rules.filter((rule) => !isRagRule(rule)),
    );
    browser = await openBrowser(system.url);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

  const api = (route: string, init: RequestInit = {}) =>
    system.http(route, { ...init, headers: { authorization: `Bearer ${API_KEY}` } });

  it('pursues the demo goal from the page to the created resource', async () => {
    const { page } = browser;
    await enterKey(page, system.url);
    const goalId = await submitDemo(page);

    // The phases arrive live (the goal is still running: it waits for the confirmation below).
    const timeline = page.getByTestId('timeline');
    for (const kind of FIRST_PHASES) await timeline.locator(`[data-kind="${kind}"]`).first().waitFor();
    await page.getByTestId('pending').getByText('ResourceWriteTool asks for confirmation').waitFor();
    await browser.screenshot('goal-timeline-confirmation');

    // A second goal of the same thread queues behind the first: it appears in the table without a reload.
    await page.getByRole('link', { name: 'Goals' }).click();
    await page.locator(`tr[data-goal-id="${goalId}"]`).getByText('confirm pending').waitFor();
    const second = await api('/v1/goals', {
      method: 'POST',
      body: JSON.stringify({ request: 'Give 余归 a rival in the Azure Sect', threadId: THREAD }),
    });
    expect(second.status).toBe(202);
    const secondRow = page.locator(`tr[data-goal-id="${String(second.body['goalId'])}"]`);
    await secondRow.waitFor();
    await browser.screenshot('goals-table');

    // Cancel it from its page.
    await secondRow.getByRole('link').first().click();
    await page.getByRole('button', { name: 'Cancel goal' }).click();
    await page.getByTestId('goal-status').getByText('cancelled').waitFor();

    // Back to the first goal: approve, then it completes; its timeline has the whole pursuit.
    await page.goto(`${system.url}/ui/#/goals/${goalId}`);
    await approveUntilCompleted(page);
    await timeline.locator('[data-kind="goal.completed"]').waitFor();
    await page.getByTestId('trace-state').getByText('ended').waitFor();
    expect(await timeline.locator('[data-kind="operation.outcome"]').count()).toBeGreaterThanOrEqual(4);
    expect(await timeline.locator('[data-kind="interaction.answered"]').count()).toBeGreaterThanOrEqual(1);
    expect(await timeline.locator('[data-kind="analysis.verdict"]').count()).toBeGreaterThanOrEqual(1);
    expect((await api(`/v1/goals/${goalId}`)).body['status']).toBe('completed');

    // Open the resource it created.
    const resource = page.getByTestId('resource');
    await page.getByRole('link', { name: 'Repository' }).click();
    await resource.getByRole('link', { name: 'character' }).click();
    await resource.getByRole('link', { name: 'yugui' }).click();
    await resource.getByText('余归').first().waitFor();
    await resource.getByText('/faction/azure_sect').first().waitFor();

    // The tool catalogue and the services.
    await page.getByRole('link', { name: 'Tools & services' }).click();
    await page.locator('[data-tool="ResourceWriteTool"]').waitFor();
    await page.getByTestId('services').getByText('novelrag-gateway').first().waitFor();
    await browser.screenshot('tools');

    expect(browser.foreignRequests).toEqual([]);
    expect(browser.pageErrors.filter((e) => !/401|Unauthorized/i.test(e))).toEqual([]);
  }, 400_000);
  it('answers a rag question submitted from the page, streaming, with its citations marked', async () => {
    const { page } = browser;
    let release!: () => void;
    scriptRagQuestion(system.fake, new Promise<void>((resolve) => (release = resolve)));
    await page.getByRole('link', { name: 'Submit' }).click();
    await page.getByLabel('agent kind').selectOption('rag');
    await page.getByLabel('goal text').fill(QUESTION);
    await page.getByRole('button', { name: 'Submit goal' }).click();
    await page.waitForURL(/#\/goals\/g-/);
    const goalId = shownGoalId(page);

    // The route is traced on the page before the answer is written: the pieces then arrive live, in order.
    const timeline = page.getByTestId('timeline');
    await timeline.locator('[data-kind="rag.route"]').waitFor();
    release();
    const answer = page.getByTestId('answer');
    await answer.getByText('The Azure Sect is led by').waitFor();
    await page.getByTestId('goal-status').getByText('completed').waitFor({ timeout: 120_000 });
    await timeline.locator('[data-kind="rag.answer"]').waitFor();
    expect(await answer.getAttribute('data-pieces')).toBe(String(ANSWER_PIECES.length));
    // The final answer: the unverifiable citation stripped from the text and listed as unverified.
    await page.getByTestId('answer-text').getByText('So the records say.').waitFor();
    const citation = page.getByTestId('citations').locator('li');
    expect(await citation.count()).toBe(1);
    expect(await citation.getAttribute('data-verified')).toBe('false');
    expect((await api(`/v1/goals/${goalId}`)).body['agent']).toBe('rag');

    // The goals table filtered by agent kind shows it, and only rag goals.
    await page.getByRole('link', { name: 'Goals' }).click();
    await page.getByLabel('agent kind').selectOption('rag');
    await page.locator(`tr[data-goal-id="${goalId}"]`).waitFor();
    const others = page.locator(`tr[data-goal-id]:not([data-goal-id="${goalId}"])`);
    await others.first().waitFor({ state: 'detached' });
    expect(await page.locator('tr[data-goal-id]').count()).toBe(1);
    expect(browser.pageErrors.filter((e) => !/401|Unauthorized/i.test(e))).toEqual([]);
  }, 300_000);
});
