import { Body, Controller, Get, Headers, HttpCode, Inject, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiConsumes, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type AspectDump, ImportRequest } from '@novelrag/contracts';
import {
  dumpsToProject,
  ImportBatch,
  type ImportBatchReply,
  type NovelragProject,
  type ImportPlan,
  planProjectDir,
  planProjectFiles,
  readProjectArchive,
  type ResourceService,
  sendImportBatch,
} from '@novelrag/resource-client';
import { z } from 'zod';
import { RESOURCE_SERVICE } from '../resources/resource-service.provider';
import {
  answerImport,
  asApiError,
  type ImportResponse,
  NDJSON,
  readBoundedBody,
  UploadSlots,
} from './import-stream';

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

/** `POST /v1/projects/import/upload?mode=`: the mode of an uploaded project. */
const UploadQuery = z.strictObject({ mode: ImportMode });
type UploadQuery = z.infer<typeof UploadQuery>;

/** Bound on an upload's body (the archive as sent, compressed or not). */
export const MAX_UPLOAD_BYTES = 32 * 1024 * 1024;

/** Uploads handled at once by a gateway (see `UploadSlots`). */
export const MAX_CONCURRENT_UPLOADS = 2;

/** Plans an import, a project-format problem answered as a 4xx naming the file. */
async function plan(read: () => Promise<ImportPlan>): Promise<ImportPlan> {
  try {
    return await read();
  } catch (err) {
    throw asApiError(err);
  }
}

/**
 * Whole NovelRAG projects in and out: import a directory on the gateway host (sent to the resource-service in
 * bounded batches, each well under one NATS message), import one batch a client cut (the CLI), export as files.
 */
@ApiTags('projects')
@ApiBearerAuth()
@Controller('v1/projects')
export class ProjectsController {
  private readonly uploads = new UploadSlots(MAX_CONCURRENT_UPLOADS);

  constructor(@Inject(RESOURCE_SERVICE) private readonly resources: ResourceService) {}

  @Post('import')
  @ApiOperation({
    summary:
      'Import a NovelRAG project directory on the gateway host, in bounded batches; reports what was skipped and why',
    description: `With \`Accept: ${NDJSON}\` the answer is a stream of ImportProgressEvent lines (a line per batch).`,
  })
  async importDir(
    @Body({ schema: ProjectImportBody }) { path, mode = 'merge' }: ProjectImportBody,
    @Headers('accept') accept: string | undefined,
    @Res() res: ImportResponse,
  ): Promise<void> {
    await answerImport(this.resources, await plan(() => planProjectDir(path)), mode, accept, res);
  }

  @Post('import/upload')
  @ApiOperation({
    summary:
      'Import a NovelRAG project uploaded as a tar archive (gzip or not: aspect.yml and the files it names), in ' +
      'bounded batches; reports what was skipped and why',
    description:
      `The body is the archive (at most ${MAX_UPLOAD_BYTES} bytes; entries leaving the project are refused). With ` +
      `\`Accept: ${NDJSON}\` the answer is a stream of ImportProgressEvent lines (a line per batch).`,
  })
  @ApiConsumes('application/gzip', 'application/x-tar')
  @ApiBody({ schema: { type: 'string', format: 'binary' } })
  async importUpload(
    @Query({ schema: UploadQuery }) { mode = 'merge' }: UploadQuery,
    @Headers('accept') accept: string | undefined,
    @Req() req: Parameters<typeof readBoundedBody>[0],
    @Res() res: ImportResponse,
  ): Promise<void> {
    await this.uploads.run(async () => {
      const archive = await readBoundedBody(req, MAX_UPLOAD_BYTES);
      const planned = await plan(async () => planProjectFiles(await readProjectArchive(archive)));
      await answerImport(this.resources, planned, mode, accept, res);
    });
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
