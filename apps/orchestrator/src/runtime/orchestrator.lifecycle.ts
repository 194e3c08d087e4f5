import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { Orchestrator } from './orchestrator';

/** Starts the orchestrator once Nest is up; stops it (gracefully) before the connection is drained. */
@Injectable()
export class OrchestratorLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(@Inject(Orchestrator) private readonly orchestrator: Orchestrator) {}

  onApplicationBootstrap(): Promise<void> {
    return this.orchestrator.start();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.orchestrator.stop();
  }
}
