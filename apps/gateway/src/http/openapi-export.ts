import 'reflect-metadata';
import { Module, type Provider } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { OpenAPIObject } from '@nestjs/swagger';
import { GATEWAY_CONTROLLERS } from '../app.module';
import { buildOpenApiDocument } from './openapi';

/** A stand-in for everything the controllers inject: preview mode resolves the graph but never creates anything. */
function placeholders(): Provider[] {
  const tokens = new Set<unknown>();
  for (const controller of GATEWAY_CONTROLLERS) {
    const types = (Reflect.getMetadata('design:paramtypes', controller) ?? []) as unknown[];
    const injected = (Reflect.getMetadata('self:paramtypes', controller) ?? []) as {
      index: number;
      param: unknown;
    }[];
    types.forEach((type, index) => tokens.add(injected.find((i) => i.index === index)?.param ?? type));
  }
  return [...tokens].map((token) => ({ provide: token as string, useValue: {} }));
}

/**
 * The gateway's OpenAPI document without a running system: Nest's preview mode scans the controllers' routes and
 * decorators without creating providers (no NATS). The same document `/docs/openapi.json` serves.
 */
export async function exportOpenApiDocument(): Promise<OpenAPIObject> {
  @Module({ controllers: GATEWAY_CONTROLLERS, providers: placeholders() })
  class GatewayRoutesModule {}
  const app = await NestFactory.create(GatewayRoutesModule, {
    preview: true,
    logger: false,
    abortOnError: false,
  });
  try {
    return buildOpenApiDocument(app);
  } finally {
    await app.close();
  }
}
