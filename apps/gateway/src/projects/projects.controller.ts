import { Body, Controller, Get, HttpCode, Inject, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AspectDump } from '@novelrag/contracts';
import { isResourceError } from '@novelrag/repository';
import {
  dumpsToProject,
  ImportBatch,
  type ImportBatchReply,
  type ImportReport,
  type NovelragProject,
  planProjectDir,
  type ResourceService,
  runImportPlan,
  sendImportBatch,
} from '@novelrag/resource-client';
import { ApiError } from '../http/api-error';
import { RESOURCE_SERVICE } from '../resources/resource-service.provider';
import { ProjectImportBatchDto, ProjectImportDto } from './projects.dto';

/** A project-format problem (bad YAML, a missing file) as a 400 naming the file; anything else passes through. */
function asApiError(err: unknown): unknown {
  return isResourceError(err) && err.code === 'VALIDATION_FAILED'
    ? new ApiError('VALIDATION_FAILED', err.message, err.details ? { ...err.details } : undefined)
    : err;
}

/**
 * Whole NovelRAG projects in and out: import a directory on the gateway host (sent to the resource-service in
 * bounded batches, each well under one NATS message), import one batch a client cut (the CLI), export as files.
 */
@ApiTags('projects')
@ApiBearerAuth()
@Controller('v1/projects')
export class ProjectsController {
  constructor(@Inject(RESOURCE_SERVICE) private readonly resources: ResourceService) {}

  @Post('import')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Import a NovelRAG project directory on the gateway host, in bounded batches; reports what was skipped and why',
  })
  async importDir(@Body() { path, mode = 'merge' }: ProjectImportDto): Promise<ImportReport> {
    try {
      const plan = await planProjectDir(path);
      return await runImportPlan(this.resources, plan, mode);
    } catch (err) {
      throw asApiError(err);
    }
  }

  @Post('import/batches')
  @HttpCode(200)
  @ApiOperation({ summary: "Import one batch of an aspect's elements (start 0 creates the aspect)" })
  async importBatch(@Body() { mode = 'merge', ...body }: ProjectImportBatchDto): Promise<ImportBatchReply> {
    const batch = ImportBatch.safeParse(body);
    if (!batch.success) {
      const issues = batch.error.issues.slice(0, 5).map((i) => `${i.path.join('.')}: ${i.message}`);
      throw new ApiError('VALIDATION_FAILED', `invalid batch: ${issues.join('; ')}`, { issues });
    }
    await sendImportBatch(this.resources, batch.data, mode);
    return { elements: batch.data.elements.length };
  }

  @Get('export')
  @ApiOperation({
    summary: 'Export every aspect as a NovelRAG project: the config text and each file by its path',
  })
  async export(): Promise<NovelragProject> {
    const { aspects } = await this.resources.aspectsList({});
    const dumps: AspectDump[] = [];
    // One aspect per request keeps each reply within a NATS message for worlds larger than one.
    for (const { name } of aspects) dumps.push(...(await this.resources.export({ aspects: [name] })).aspects);
    return dumpsToProject(dumps);
  }
}
