#!/usr/bin/env node
// Dashboard measurement (issue 14), in headless Chromium against a gateway, resource-service and tool-runner on a
// private nats-server (no orchestrator: the goals stay queued and the trace is published here, so the figures are the
// page's and the gateway's, not the model's):
//   (1) time to first render of each view, with --goals goals in the list and one goal of --events trace events
//       (navigation start → the view's content in the DOM, read in the page with performance.now());
//   (2) update latency from a trace event stored in TRACE to the page: a timeline entry appended on the goal's page,
//       a row's phase changed on the goals table (publish time → DOM mutation, both on this machine's clock).
//
//   node bench/dashboard.bench.mjs [--goals 1000] [--events 500] [--samples 50] [--runs 5]
// Needs the compiled workspace and the dashboard build (`npm run bench` builds both) and Chromium (NOVELRAG_CHROMIUM,
// default /usr/bin/chromium; skipped with a message when missing). Writes bench-results/dashboard-<timestamp>.{json,md}.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { jetstream } from '@nats-io/jetstream';
import { goalPoster } from './lib/goal-scenario.mjs';
import { createInfra } from './lib/infra.mjs';
import { machine, markdownTable, ms, positiveInts, summarize } from './lib/report.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// The launch the browser suite uses (Debian's Chromium, headless, no network of its own).
const launch = JSON.parse(readFileSync(path.join(root, 'libs/testkit/src/chromium.json'), 'utf8'));
const chromiumPath = process.env.NOVELRAG_CHROMIUM ?? launch.executablePath;
if (!existsSync(chromiumPath)) {
  console.log(`dashboard benchmark SKIPPED: no Chromium at ${chromiumPath} (apt-get install chromium)`);
  process.exit(0);
}
if (!existsSync(path.join(root, 'apps/dashboard/dist/index.html'))) {
  console.error('the dashboard is not built: run `npm run build` (or `npm run bench`, which builds it)');
  process.exit(1);
}
const { chromium } = await import('playwright-core');

const { values } = parseArgs({
  args: process.argv.slice(2),
  strict: false,
  options: {
    goals: { type: 'string' },
    events: { type: 'string' },
    samples: { type: 'string' },
    runs: { type: 'string' },
  },
});
const int = positiveInts(values);
const opts = {
  goals: int('goals', 1000),
  events: int('events', 500),
  samples: int('samples', 50),
  runs: int('runs', 5),
};
const { tmp, children, log, freePort, startNatsServer, startService } = createInfra(root);

/** Synthetic trace events of every non-final kind, from the contracts' valid fixtures, for one goal. */
function traceFactory(goalId) {
  const dir = path.join(root, 'libs/contracts/fixtures/valid/TraceEvent');
  const samples = readdirSync(dir)
    .filter((f) => f.endsWith('.json') && !f.startsWith('goal-completed'))
    .map((f) => JSON.parse(readFileSync(path.join(dir, f), 'utf8')));
  return (seq, kind) => {
    const sample = (kind && samples.find((s) => s.kind === kind)) ?? samples[seq % samples.length];
    return { ...sample, goalId, threadId: goalId, seq, at: new Date().toISOString() };
  };
}

async function seed(gatewayUrl, nc) {
  const postGoal = goalPoster(gatewayUrl);
  const post = async (body) => (await postGoal(body)).goalId;
  log(`seeding ${opts.goals} goals and one goal of ${opts.events} trace events`);
  const big = await post({ request: 'Create the protagonist 余归 and link her to the Azure Sect' });
  for (let i = 1; i < opts.goals; i += 16)
    await Promise.all(
      Array.from({ length: Math.min(16, opts.goals - i) }, (_, k) =>
        post({ goal: `benchmark goal ${i + k} 余归` }),
      ),
    );
  const js = jetstream(nc);
  const event = traceFactory(big);
  for (let seq = 0; seq < opts.events; seq++)
    await js.publish(`novelrag.trace.${big}.${event(seq).kind}`, JSON.stringify(event(seq)));
  return { big, event, js };
}

/**
 * Opens `hash` on a fresh page load and returns the in-page time (ms since navigation start) at which `ready` (run in
 * the page; it returns performance.now() once the view's content is there) first held.
 */
async function firstRender(page, url, hash, ready, arg) {
  await page.goto('about:blank');
  await page.goto(`${url}/ui/${hash}`);
  const handle = await page.waitForFunction(ready, arg, { timeout: 120_000, polling: 'raf' });
  return handle.jsonValue();
}

async function measureViews(page, url, big) {
  const views = {
    'goals table (20 of N rows)': [
      '#/goals',
      () => document.querySelectorAll('tr[data-goal-id]').length >= 20 && performance.now(),
    ],
    [`goal timeline (${opts.events} events)`]: [
      `#/goals/${big}`,
      (n) => document.querySelectorAll('li.entry').length >= n && performance.now(),
      opts.events,
    ],
    'tools & services': [
      '#/tools',
      () =>
        !!document.querySelector('[data-tool]') &&
        !!document.querySelector('[data-testid=services] tbody tr') &&
        performance.now(),
    ],
    'repository (root)': [
      '#/repository',
      () => !!document.querySelector('[data-testid=resource] h3') && performance.now(),
    ],
    'submit form': ['#/submit', () => !!document.querySelector('form.submit-form') && performance.now()],
  };
  const out = {};
  for (const [name, [hash, ready, arg]] of Object.entries(views)) {
    const samples = [];
    for (let i = 0; i < opts.runs; i++) samples.push(Number(await firstRender(page, url, hash, ready, arg)));
    out[name] = summarize(samples);
    log(`(1) ${name}: p50 ${ms(out[name].p50)} ms`);
  }
  return out;
}

/**
 * Arms a MutationObserver in the page that resolves `window.__shown` with Date.now() at the first DOM change after
 * which the timeline has `entries` entries, or the row of `goalId` shows `phase` (whichever is given).
 */
function armRecorder(page, target) {
  return page.evaluate((t) => {
    const met = () =>
      t.entries !== undefined
        ? document.querySelectorAll('li.entry').length >= t.entries
        : !!document
            .querySelector(`tr[data-goal-id="${t.goalId}"] [data-testid=phase]`)
            ?.textContent?.startsWith(t.phase);
    window.__shown = new Promise((resolve) => {
      const observer = new MutationObserver(() => {
        if (!met()) return;
        observer.disconnect();
        resolve(Date.now());
      });
      observer.observe(document.body, { childList: true, subtree: true, characterData: true });
    });
  }, target);
}

/** Publishes one event and returns publish → shown in milliseconds (one machine, one clock). */
async function latency(page, js, subject, event, target) {
  await armRecorder(page, target);
  const published = Date.now();
  await js.publish(subject, JSON.stringify(event));
  const shown = await page.evaluate(() =>
    Promise.race([
      window.__shown,
      new Promise((_, reject) => setTimeout(() => reject(new Error('not shown in 30 s')), 30_000)),
    ]),
  );
  return shown - published;
}

async function measureUpdates(page, url, big, event, js) {
  await page.goto('about:blank');
  await page.goto(`${url}/ui/#/goals/${big}`);
  await page.waitForFunction((n) => document.querySelectorAll('li.entry').length >= n, opts.events, {
    timeout: 120_000,
  });
  await page.getByTestId('trace-state').getByText('live').waitFor();
  const timeline = [];
  for (let i = 0; i < opts.samples; i++) {
    const seq = opts.events + i;
    const subject = `novelrag.trace.${big}.runtime`;
    timeline.push(await latency(page, js, subject, event(seq, 'runtime'), { entries: seq + 1 }));
  }
  // The goals table: the newest goal's row (first) shows the phase of its latest event from the ops feed.
  await page.goto(`${url}/ui/#/goals`);
  await page.getByTestId('feed-state').getByText('live').waitFor();
  const first = await page.locator('tr[data-goal-id]').first().getAttribute('data-goal-id');
  const row = traceFactory(first);
  const table = [];
  for (let i = 0; i < opts.samples; i++) {
    const kind = i % 2 === 0 ? 'decision' : 'assessment';
    const subject = `novelrag.trace.${first}.${kind}`;
    table.push(await latency(page, js, subject, row(i, kind), { goalId: first, phase: kind }));
  }
  return { timeline: summarize(timeline), table: summarize(table) };
}

async function main() {
  const { url: natsUrl, nc } = await startNatsServer();
  const env = {
    NATS_URL: natsUrl,
    NOVELRAG_DATA_DIR: path.join(tmp, 'store'),
    OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
    OPENAI_API_KEY: 'none',
  };
  await startService(nc, 'resource-service', 'dash-rs', env);
  await startService(nc, 'tool-runner', 'dash-runner-1', env);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  await startService(nc, 'gateway', 'dash-gw', {
    ...env,
    PORT: String(port),
    NOVELRAG_AUTH_DISABLED: 'true',
    NOVELRAG_RATE_LIMIT_PER_MIN: '1000000',
  });
  const { big, event, js } = await seed(url, nc);
  const context = await chromium.launchPersistentContext(path.join(tmp, 'chromium'), {
    executablePath: chromiumPath,
    headless: true,
    viewport: { width: 1366, height: 900 },
    args: launch.args,
  });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    const views = await measureViews(page, url, big);
    log(`(2) update latency, ${opts.samples} events each`);
    const updates = await measureUpdates(page, url, big, event, js);
    report({ views, updates });
  } finally {
    await context.close();
    await nc.close();
  }
}

function report(results) {
  const at = new Date().toISOString();
  const md = [
    `## Dashboard benchmark (${at})`,
    `Machine: ${JSON.stringify(machine({ chromium: chromiumPath }))}`,
    `### (1) Time to first render (${opts.goals} goals listed, ${opts.runs} page loads each; navigation start → content)`,
    markdownTable(
      ['view', 'loads', 'p50 ms', 'max ms'],
      Object.entries(results.views).map(([name, s]) => [name, String(s.n), ms(s.p50), ms(s.max)]),
    ),
    `### (2) Update latency (trace event published → shown in the page, ${opts.samples} events each)`,
    markdownTable(
      ['where', 'events', 'p50 ms', 'p95 ms', 'max ms'],
      [
        [`goal timeline (after ${opts.events} events)`, results.updates.timeline],
        [`goals table phase (${opts.goals} goals)`, results.updates.table],
      ].map(([name, s]) => [name, String(s.n), ms(s.p50), ms(s.p95), ms(s.max)]),
    ),
  ].join('\n\n');
  console.log(`\n${md}\n`);
  const dir = path.join(root, 'bench-results');
  mkdirSync(dir, { recursive: true });
  const stamp = at.replace(/[:.]/g, '-');
  writeFileSync(
    path.join(dir, `dashboard-${stamp}.json`),
    JSON.stringify({ at, opts, machine: machine(), ...results }, null, 2),
  );
  writeFileSync(path.join(dir, `dashboard-${stamp}.md`), `${md}\n`);
  console.log(`written: bench-results/dashboard-${stamp}.{json,md}`);
}

try {
  await main();
} catch (err) {
  console.error(`dashboard benchmark failed: ${err.stack ?? err}`);
  process.exitCode = 1;
} finally {
  for (const c of children.reverse()) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(tmp, { recursive: true, force: true });
}
