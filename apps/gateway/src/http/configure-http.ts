import { type INestApplication, StandardSchemaValidationPipe } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { SwaggerModule } from '@nestjs/swagger';
import type { ServiceContext } from '@novelrag/bus';
import type { GatewayEnv } from '../config';
import { accessLog } from './access-log';
import { AuthGuard } from './auth.guard';
import { corsOptions, dashboardDir, serveDashboard } from './dashboard-static';
import { HttpErrorFilter } from './http-error.filter';
import { buildOpenApiDocument } from './openapi';
import { KvRateLimiter } from './rate-limiter';

/**
 * HTTP concerns of the gateway, applied once at boot: the access log with request ids, body limits, CORS, auth, errors,
 * OpenAPI at /docs, the dashboard at /ui. Request bodies and query strings are validated with the contracts' zod
 * schemas each route names (`@Body({ schema })`, `@Query({ schema })`: Nest's Standard Schema support, which
 * `@nestjs/swagger` also documents); a failure is a 400 VALIDATION_FAILED listing the issues.
 */
export function configureHttp(app: INestApplication, ctx: ServiceContext<GatewayEnv>): void {
  const express = app as NestExpressApplication;
  express.use(accessLog(ctx.logger.child('Http')));
  express.useBodyParser('json', { limit: ctx.env.NOVELRAG_BODY_LIMIT_BYTES, strict: true });
  express.disable('x-powered-by');
  if (ctx.env.NOVELRAG_CORS_ORIGINS.length > 0) app.enableCors(corsOptions(ctx.env.NOVELRAG_CORS_ORIGINS));
  serveDashboard(express, dashboardDir(ctx.env.NOVELRAG_DASHBOARD_DIR), ctx.logger.child('Dashboard'));
  app.useGlobalPipes(new StandardSchemaValidationPipe());
  app.useGlobalFilters(new HttpErrorFilter(ctx.logger.child('Http')));
  const rate = { limit: ctx.env.NOVELRAG_RATE_LIMIT_PER_MIN, windowMs: 60_000 };
  app.useGlobalGuards(
    new AuthGuard(app.get(Reflector), {
      keys: ctx.env.NOVELRAG_API_KEYS,
      disabled: ctx.env.NOVELRAG_AUTH_DISABLED,
      limiter: new KvRateLimiter(ctx.connection, rate, ctx.logger.child('RateLimit')),
      windowMs: rate.windowMs,
    }),
  );
  const document = buildOpenApiDocument(app);
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs/openapi.json' });
}
