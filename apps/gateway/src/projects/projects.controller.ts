import { Body, Controller, Get, HttpCode, Inject, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type AspectDump, ImportRequest } from '@novelrag/contracts';
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
import { z } from 'zod';
import { ApiError } from '../http/api-error';
import { RESOURCE_SERVICE } from '../resources/resource-service.provider';

const ImportMode = ImportRequest.shape.mode
  .optional()
  .meta({ description: '`merge` (default) refuses aspects that exist (409); `replace` overwrites them' });

/** `POST /v1/projects/import`: a project directory on the gateway host. */
const ProjectImportBody = z.strictObject({
  path: z.string().min(1).max(4096).meta({
    description: 'A NovelRAG project directory on the gateway host (`aspect.yml` plus the files it names)',
    example: '/srv/worlds/demo',
  }),
  mode: ImportMode,
});
type ProjectImportBody = z.infer<typeof ProjectImportBody>;

/** `POST /v1/projects/import/batches`: one batch a client cut (start 0 creates the aspect, later ones append). */
const ProjectImportBatchBody = ImportBatch.extend({ mode: ImportMode });
type ProjectImportBatchBody = z.infer<typeof ProjectImportBatchBody>;

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
  async importDir(
    @Body({ schema: ProjectImportBody }) { path, mode = 'merge' }: ProjectImportBody,
  ): Promise<ImportReport> {
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
  async importBatch(
    @Body({ schema: ProjectImportBatchBody })
    { mode = 'merge', ...batch }: ProjectImportBatchBody,
  ): Promise<ImportBatchReply> {
    await sendImportBatch(this.resources, batch, mode);
    return { elements: batch.elements.length };
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
