// The resource-service as other processes use it: the ResourceService port, its NATS client and the repository
// behind it in process (what the resource-service serves, and its in-memory twin for tests).
export type { ResourceService, ResourceMethod } from './resource-service.port';
export { RESOURCE_CALLS, parseRequest, replySchema, type RequestOf, type ReplyOf } from './calls';
export {
  NatsResourceService,
  DEFAULT_RESOURCE_TIMEOUT_MS,
  type NatsResourceServiceOptions,
} from './nats-resource-service';
export { NatsMemory, type NatsMemoryOptions } from './nats-memory';
export { RepositoryResourceService } from './repository-resource-service';
export {
  openInMemoryResourceService,
  type InMemoryResourceServiceOptions,
  type ResourceSeed,
} from './in-memory-resource-service';
export { asBusError } from './errors';
export { dumpedFromInput, inputFromDumped } from './wire';
export { findOrNull } from './find-or-null';
export { configPaths, dumpsToProject, projectToDumps, NovelragProject } from './project-format';
export {
  MAX_PROJECT_ARCHIVE_BYTES,
  MAX_PROJECT_ARCHIVE_ENTRIES,
  planProjectFiles,
  type ProjectFiles,
  readProjectArchive,
} from './project-archive';
export {
  DEFAULT_IMPORT_BATCH_BYTES,
  ImportBatch,
  PROJECT_CONFIG_FILE,
  batchLabel,
  planImportBatches,
  planProjectDir,
  readProjectDir,
  runImportPlan,
  sendImportBatch,
  ImportBatchReply,
  ImportReport,
  ImportProgressEvent,
  SkippedItem,
  type ImportPlan,
} from './project-import';
