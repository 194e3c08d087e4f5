import { Controller, type DynamicModule, Global, Inject, Module, type Type } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import type { NatsConnection } from '@nats-io/transport-node';
import { type ServiceName, Subjects } from '@novelrag/contracts';
import { HealthRegistry, type HealthReport } from './health';
import { JsonLogger } from './logger';
import type { EndpointExtras } from './micro-server';

/** Injection token of the service's shared `NatsConnection`. */
export const NATS_CONNECTION = Symbol('NATS_CONNECTION');
/** Injection token of the `ServiceIdentity`. */
export const SERVICE_IDENTITY = Symbol('SERVICE_IDENTITY');

export interface ServiceIdentity {
  readonly service: ServiceName;
  readonly instanceId: string;
  readonly version: string;
}

export interface BusModuleOptions {
  readonly connection: NatsConnection;
  readonly identity: ServiceIdentity;
  readonly logger: JsonLogger;
  readonly health: HealthRegistry;
}

function healthController(service: ServiceName, instanceId: string): Type {
  @Controller()
  class HealthController {
    constructor(@Inject(HealthRegistry) private readonly registry: HealthRegistry) {}

    /** Any one instance of the service answers (queue group). */
    @MessagePattern(Subjects.health(service), { endpoint: 'health' } satisfies EndpointExtras)
    health(): Promise<HealthReport> {
      return this.registry.report();
    }

    /** This instance answers (the launcher and tests probe each instance). */
    @MessagePattern(Subjects.instanceHealth(service, instanceId), {
      endpoint: 'instance-health',
    } satisfies EndpointExtras)
    instanceHealth(): Promise<HealthReport> {
      return this.registry.report();
    }
  }
  return HealthController;
}

/**
 * Global module giving every feature the shared NATS connection, the logger, the health registry and the service
 * identity; it also answers the service's health request (`novelrag.health.<service>`).
 */
@Global()
@Module({})
export class BusModule {
  static forRoot(options: BusModuleOptions): DynamicModule {
    return {
      module: BusModule,
      controllers: [healthController(options.identity.service, options.identity.instanceId)],
      providers: [
        { provide: NATS_CONNECTION, useValue: options.connection },
        { provide: SERVICE_IDENTITY, useValue: options.identity },
        { provide: JsonLogger, useValue: options.logger },
        { provide: HealthRegistry, useValue: options.health },
      ],
      exports: [NATS_CONNECTION, SERVICE_IDENTITY, JsonLogger, HealthRegistry],
    };
  }
}
