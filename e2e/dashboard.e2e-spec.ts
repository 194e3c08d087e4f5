import type { Page } from 'playwright-core';
import { buildDashboard, chromiumAvailable, openBrowser, type BrowserSession } from './support/browser';
import { DEMO_REQUEST, DEMO_SCENARIO, installRules, startSystem, type System } from './support/system';

const API_KEY = 'dashboard-e2e-key-0123456789';
const THREAD = 'novel-1';
const run = chromiumAvailable() ? describe : describe.skip;

/** The goal id of the detail page the browser shows. */
const shownGoalId = (page: Page) => decodeURIComponent(new URL(page.url()).hash.replace(/^#\/goals\//, ''));

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
    installRules(system.fake, DEMO_SCENARIO.rules);
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
    await page.goto(`${system.url}/ui/`);
    // Without a key the API answers 401 and the page says how to enter one.
    await page.getByRole('alert').filter({ hasText: 'UNAUTHORIZED' }).waitFor();
    await page.getByRole('button', { name: 'API key' }).click();
    await page.getByLabel('API key').fill(API_KEY);
    await page.getByRole('button', { name: 'Use key' }).click();
    await page.getByText('No goals yet').waitFor();

    // Submit from the page.
    await page.getByRole('link', { name: 'Submit' }).click();
    await page.getByLabel('goal text').fill(DEMO_REQUEST);
    await page.getByLabel('thread').fill(THREAD);
    await page.getByRole('button', { name: 'Submit goal' }).click();
    await page.waitForURL(/#\/goals\/g-/);
    const goalId = shownGoalId(page);

    // The phases arrive live (the goal is still running: it will wait for the confirmation below).
    const timeline = page.getByTestId('timeline');
    for (const kind of [
      'goal.accepted',
      'goal.started',
      'assessment',
      'discovery.plan',
      'decision',
      'operation.dispatched',
    ])
      await timeline.locator(`[data-kind="${kind}"]`).first().waitFor();
    const approve = page.getByRole('button', { name: 'Approve' });
    await approve.waitFor();
    await page.getByTestId('pending').getByText('ResourceWriteTool asks for confirmation').waitFor();
    await browser.screenshot('goal-timeline-confirmation');

    // A second goal of the same thread queues behind the first: it appears in the table without a reload.
    await page.getByRole('link', { name: 'Goals' }).click();
    const firstRow = page.locator(`tr[data-goal-id="${goalId}"]`);
    await firstRow.getByText('confirm pending').waitFor();
    const second = await api('/v1/goals', {
      method: 'POST',
      body: JSON.stringify({ request: 'Give 余归 a rival in the Azure Sect', threadId: THREAD }),
    });
    expect(second.status).toBe(202);
    const secondId = String(second.body['goalId']);
    const secondRow = page.locator(`tr[data-goal-id="${secondId}"]`);
    await secondRow.waitFor();
    await browser.screenshot('goals-table');

    // Cancel it from its page.
    await secondRow.getByRole('link').first().click();
    await page.getByRole('button', { name: 'Cancel goal' }).click();
    await page.getByTestId('goal-status').getByText('cancelled').waitFor();

    // Approve the first goal's confirmation(s) from the page until it completes.
    await page.goto(`${system.url}/ui/#/goals/${goalId}`);
    const status = page.getByTestId('goal-status');
    for (let i = 0; i < 5; i++) {
      const next = await Promise.race([
        approve.waitFor({ timeout: 120_000 }).then(() => 'approve' as const),
        status
          .getByText('completed')
          .waitFor({ timeout: 120_000 })
          .then(() => 'done' as const),
      ]);
      if (next === 'done') break;
      await approve.click();
      await page
        .getByTestId('pending')
        .getByRole('button', { name: 'Approve' })
        .waitFor({ state: 'detached' });
    }
    await status.getByText('completed').waitFor();
    await timeline.locator('[data-kind="goal.completed"]').waitFor();
    await page.getByTestId('trace-state').getByText('ended').waitFor();
    expect(await timeline.locator('[data-kind="operation.outcome"]').count()).toBeGreaterThanOrEqual(4);
    expect(await timeline.locator('[data-kind="interaction.answered"]').count()).toBeGreaterThanOrEqual(1);
    expect(await timeline.locator('[data-kind="analysis.verdict"]').count()).toBeGreaterThanOrEqual(1);

    // Open the resource it created.
    await page.getByRole('link', { name: 'Repository' }).click();
    await page.getByTestId('resource').getByRole('link', { name: 'character' }).click();
    await page.getByTestId('resource').getByRole('link', { name: 'yugui' }).click();
    await page.getByTestId('resource').getByText('余归').first().waitFor();
    await page.getByText('/faction/azure_sect').first().waitFor();

    // The tool catalogue and the services.
    await page.getByRole('link', { name: 'Tools & services' }).click();
    await page.locator('[data-tool="ResourceWriteTool"]').waitFor();
    await page.getByTestId('services').getByText('novelrag-gateway').first().waitFor();
    await browser.screenshot('tools');

    const finalGoal = await api(`/v1/goals/${goalId}`);
    expect(finalGoal.body['status']).toBe('completed');
    expect(browser.foreignRequests).toEqual([]);
    expect(browser.pageErrors.filter((e) => !/401|Unauthorized/i.test(e))).toEqual([]);
  }, 400_000);
});
