import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Subjects } from '@novelrag/contracts';
import type { ResourceRepository } from '@novelrag/repository';
import { RepositoryResourceService, type RequestOf, type ResourceMethod } from '@novelrag/resource-client';
import { Metrics, timed } from '@novelrag/telemetry';
import { RESOURCE_REPOSITORY } from './tokens';

const S = Subjects.resources;

/**
 * The resource service's NATS API (`novelrag.resources.*`): each subject is answered by the ResourceService method of
 * the same name over this process's repository, which parses the payload with its contract; coded errors travel as
 * coded envelopes through the bus transport (BusExceptionFilter).
 */
@Controller()
export class ResourcesController {
  private readonly service: RepositoryResourceService;

  constructor(@Inject(RESOURCE_REPOSITORY) repo: ResourceRepository) {
    this.service = new RepositoryResourceService(repo);
  }

  @MessagePattern(S.find)
  find(@Payload() body: unknown) {
    return this.service.find(unparsed<'find'>(body));
  }

  @MessagePattern(S.search)
  search(@Payload() body: unknown) {
    return timed(
      (s) => Metrics.searchLatency.observe(s),
      () => this.service.search(unparsed<'search'>(body)),
    );
  }

  @MessagePattern(S.segments)
  segments(@Payload() body: unknown) {
    return this.service.segments(unparsed<'segments'>(body));
  }

  @MessagePattern(S.apply)
  apply(@Payload() body: unknown) {
    return this.service.apply(unparsed<'apply'>(body));
  }

  @MessagePattern(S.relationships)
  relationships(@Payload() body: unknown) {
    return this.service.relationships(unparsed<'relationships'>(body));
  }

  @MessagePattern(S.aspectsList)
  aspects(@Payload() body: unknown) {
    return this.service.aspectsList(unparsed<'aspectsList'>(body));
  }

  @MessagePattern(S.aspectsCreate)
  createAspect(@Payload() body: unknown) {
    return this.service.aspectsCreate(unparsed<'aspectsCreate'>(body));
  }

  @MessagePattern(S.aspectsRemove)
  removeAspect(@Payload() body: unknown) {
    return this.service.aspectsRemove(unparsed<'aspectsRemove'>(body));
  }

  @MessagePattern(S.undo)
  undo(@Payload() body: unknown) {
    return this.service.undo(unparsed<'undo'>(body));
  }

  @MessagePattern(S.redo)
  redo(@Payload() body: unknown) {
    return this.service.redo(unparsed<'redo'>(body));
  }

  @MessagePattern(S.operations)
  operations(@Payload() body: unknown) {
    return this.service.operations(unparsed<'operations'>(body));
  }

  @MessagePattern(S.backlogAdd)
  backlogAdd(@Payload() body: unknown) {
    return this.service.backlogAdd(unparsed<'backlogAdd'>(body));
  }

  @MessagePattern(S.backlogList)
  backlogList(@Payload() body: unknown) {
    return this.service.backlogList(unparsed<'backlogList'>(body));
  }

  @MessagePattern(S.backlogRemove)
  backlogRemove(@Payload() body: unknown) {
    return this.service.backlogRemove(unparsed<'backlogRemove'>(body));
  }

  @MessagePattern(S.import)
  import(@Payload() body: unknown) {
    return this.service.import(unparsed<'import'>(body));
  }

  @MessagePattern(S.export)
  export(@Payload() body: unknown) {
    return this.service.export(unparsed<'export'>(body));
  }
}

/** The payload as it came off the bus: the service parses it with the method's contract before anything reads it. */
function unparsed<M extends ResourceMethod>(body: unknown): RequestOf<M> {
  return body as RequestOf<M>;
}
