import { existsSync } from 'node:fs';
import path from 'node:path';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { ContextLogger } from '@novelrag/bus';

/** Where the dashboard is served. */
export const DASHBOARD_PATH = '/ui';

/**
 * The dashboard only talks to this origin and loads nothing from elsewhere (fonts and scripts are bundled), so its
 * pages get a strict policy: a script injected through model content could neither run inline nor send data away.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');

interface HeaderResponse {
  setHeader(name: string, value: string): void;
}
interface PlainResponse extends HeaderResponse {
  status(code: number): PlainResponse;
  json(body: unknown): void;
}

/** The built dashboard's folder: NOVELRAG_DASHBOARD_DIR, else apps/dashboard/dist beside this app (source or dist). */
export function dashboardDir(setting: string | undefined): string | null {
  if (setting === 'off') return null;
  return path.resolve(setting ?? path.join(__dirname, '..', '..', '..', 'dashboard', 'dist'));
}

/**
 * Serves the built single-page dashboard at /ui (public files: the API key is entered in the page, never served).
 * Hashed assets are cached for good, index.html never. Without a build, /ui answers 503 saying how to build it.
 */
export function serveDashboard(app: NestExpressApplication, dir: string | null, logger: ContextLogger): void {
  if (dir === null) return;
  if (!existsSync(path.join(dir, 'index.html'))) {
    logger.warn('dashboard not built: /ui answers 503 (run `npm run build`)', { dir });
    app.use(DASHBOARD_PATH, (_req: unknown, res: PlainResponse) => {
      res.status(503).json({
        code: 'UNAVAILABLE',
        message: 'the dashboard is not built on this server (npm run build builds it)',
      });
    });
    return;
  }
  app.useStaticAssets(dir, {
    prefix: DASHBOARD_PATH,
    index: 'index.html',
    redirect: true,
    setHeaders: (res: HeaderResponse, file: string) => {
      res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
      res.setHeader('X-Content-Type-Options', 'nosniff');
      res.setHeader('Referrer-Policy', 'no-referrer');
      res.setHeader(
        'Cache-Control',
        file.includes(`${path.sep}assets${path.sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache',
      );
    },
  });
}

/** CORS for browser clients on other origins (none by default): the headers the API reads and the ones it sets. */
export function corsOptions(origins: readonly string[]) {
  return {
    origin: origins.includes('*') ? true : [...origins],
    methods: ['GET', 'POST', 'DELETE'],
    allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'Last-Event-ID'],
    exposedHeaders: ['Location', 'Retry-After'],
    maxAge: 600,
  };
}
