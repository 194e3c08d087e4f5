import {
  AspectCreateReply,
  AspectCreateRequest,
  AspectRemoveReply,
  AspectRemoveRequest,
  AspectsListReply,
  AspectsListRequest,
  ApplyReply,
  ApplyRequest,
  BacklogAddReply,
  BacklogAddRequest,
  BacklogListReply,
  BacklogListRequest,
  BacklogRemoveReply,
  BacklogRemoveRequest,
  ExportReply,
  ExportRequest,
  FindReply,
  FindRequest,
  ImportReply,
  ImportRequest,
  OperationsListReply,
  OperationsListRequest,
  RelationshipsReply,
  RelationshipsUpdate,
  SearchReply,
  SearchRequest,
  SegmentsReply,
  SegmentsRequest,
  type Subjects,
  UndoRedoReply,
  UndoRedoRequest,
} from '@novelrag/contracts';
import type { z } from 'zod';

/** The request and reply contract of every ResourceService method (the same for every implementation). */
export const RESOURCE_CALLS = {
  find: { request: FindRequest, reply: FindReply },
  search: { request: SearchRequest, reply: SearchReply },
  segments: { request: SegmentsRequest, reply: SegmentsReply },
  apply: { request: ApplyRequest, reply: ApplyReply },
  relationships: { request: RelationshipsUpdate, reply: RelationshipsReply },
  aspectsList: { request: AspectsListRequest, reply: AspectsListReply },
  aspectsCreate: { request: AspectCreateRequest, reply: AspectCreateReply },
  aspectsRemove: { request: AspectRemoveRequest, reply: AspectRemoveReply },
  undo: { request: UndoRedoRequest, reply: UndoRedoReply },
  redo: { request: UndoRedoRequest, reply: UndoRedoReply },
  operations: { request: OperationsListRequest, reply: OperationsListReply },
  backlogAdd: { request: BacklogAddRequest, reply: BacklogAddReply },
  backlogList: { request: BacklogListRequest, reply: BacklogListReply },
  backlogRemove: { request: BacklogRemoveRequest, reply: BacklogRemoveReply },
  import: { request: ImportRequest, reply: ImportReply },
  export: { request: ExportRequest, reply: ExportReply },
} as const satisfies Record<keyof typeof Subjects.resources, { request: z.ZodType; reply: z.ZodType }>;

/** The name of a ResourceService method, which is also the key of its subject in `Subjects.resources`. */
export type ResourceMethod = keyof typeof RESOURCE_CALLS;

export type RequestOf<M extends ResourceMethod> = z.output<(typeof RESOURCE_CALLS)[M]['request']>;
export type ReplyOf<M extends ResourceMethod> = z.output<(typeof RESOURCE_CALLS)[M]['reply']>;

/** The reply contract of `method`, typed for it (indexing the table with a generic key widens to every schema). */
export function replySchema<M extends ResourceMethod>(method: M): z.ZodType<ReplyOf<M>> {
  return RESOURCE_CALLS[method].reply as unknown as z.ZodType<ReplyOf<M>>;
}

/** Parses a request with the contract of `method` (throws the ZodError). */
export function parseRequest<M extends ResourceMethod>(method: M, request: unknown): RequestOf<M> {
  return RESOURCE_CALLS[method].request.parse(request) as RequestOf<M>;
}
