import type { Provider } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';
import { NATS_CONNECTION } from '@novelrag/bus';
import { NatsResourceService } from '@novelrag/resource-client';

/** Injection token of the ResourceService the gateway's resource routes call. */
export const RESOURCE_SERVICE = Symbol('RESOURCE_SERVICE');
const TIMEOUT_MS = 15_000;

/** The resource-service over the bus (tests may provide another ResourceService under the same token). */
export const resourceServiceProvider: Provider = {
  provide: RESOURCE_SERVICE,
  useFactory: (nc: NatsConnection) => new NatsResourceService(nc, { timeoutMs: TIMEOUT_MS }),
  inject: [NATS_CONNECTION],
};
