import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import launch from './chromium.json';
import { REPO_ROOT as ROOT } from './repo-root';

/** Debian's Chromium (`apt-get install chromium`; .ci/run installs it), or NOVELRAG_CHROMIUM. */
export const CHROMIUM = process.env.NOVELRAG_CHROMIUM ?? launch.executablePath;

/**
 * Whether the browser suite can run. Without Chromium it fails in CI (CI=true: the suite must run there) and is skipped
 * with a message elsewhere.
 */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  const message = `Chromium not found at ${CHROMIUM}: install it with \`apt-get install -y chromium\` (or set NOVELRAG_CHROMIUM)`;
  if (process.env.CI === 'true') throw new Error(`${message}; the browser suite is required in CI`);
  console.warn(`SKIPPED the dashboard browser suite. ${message}`);
  return false;
}

/** Builds the dashboard (skipped when up to date) so the gateway has something to serve at /ui. */
export function buildDashboard(): void {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'tools/scripts/build-dashboard.mjs')], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`dashboard build failed:\n${r.stdout}\n${r.stderr}`);
}

export interface BrowserSession {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Every request the page made to another origin (must stay empty: everything is bundled). */
  readonly foreignRequests: string[];
  /** Errors thrown in the page or logged to its console. */
  readonly pageErrors: string[];
  screenshot(name: string): Promise<void>;
  close(): Promise<void>;
}

/** Headless Chromium on a fresh profile, a laptop-sized window, recording foreign requests and page errors. */
export async function openBrowser(origin: string): Promise<BrowserSession> {
  const profile = await mkdtemp(path.join(tmpdir(), 'novelrag-chromium-'));
  const shots = path.resolve(ROOT, process.env.NOVELRAG_SCREENSHOTS ?? 'tmp/screenshots');
  await mkdir(shots, { recursive: true });
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1366, height: 900 },
    args: launch.args,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(60_000);
  const foreignRequests: string[] = [];
  const pageErrors: string[] = [];
  page.on('request', (req) => {
    const url = req.url();
    if (!url.startsWith(origin) && !url.startsWith('data:')) foreignRequests.push(url);
  });
  page.on('pageerror', (err) => pageErrors.push(err.message));
  page.on('console', (msg) => {
    if (msg.type() === 'error') pageErrors.push(msg.text());
  });
  return {
    context,
    page,
    foreignRequests,
    pageErrors,
    screenshot: async (name) => {
      await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: false });
    },
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
