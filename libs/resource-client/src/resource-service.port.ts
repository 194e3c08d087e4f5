import type { ReplyOf, RequestOf, ResourceMethod } from './calls';

/**
 * The knowledge repository as every other process uses it: one method per request of the resource service
 * (`Subjects.resources`, same names), typed with the request and reply contracts.
 *
 * Implementations: `NatsResourceService` (the resource-service over the bus) and `RepositoryResourceService` (the real
 * repository in process; `openInMemoryResourceService` runs it on the in-memory store). Both pass the contract suite in
 * `@novelrag/resource-client/testing`.
 *
 * Errors: every method rejects with a `BusError` carrying the service's code — NOT_FOUND, ALREADY_EXISTS,
 * INVALID_URI, VALIDATION_FAILED (a malformed request, checked against its contract), CONFLICT, UNAVAILABLE (store or
 * embedder down), CANCELLED (`signal` aborted), and over the bus also TIMEOUT and NO_RESPONDERS. Check by `code`.
 * A cancelled write may still have been applied (as with any request/reply); writes that must not repeat carry an
 * `idempotencyKey`.
 */
export interface ResourceService {
  /** `/` → every aspect; `/{aspect}` → the aspect and its root ids; deeper → the element. NOT_FOUND otherwise. */
  find(request: RequestOf<'find'>, signal?: AbortSignal): Promise<ReplyOf<'find'>>;
  /** Hybrid keyword + vector search; exact names rank first. */
  search(request: RequestOf<'search'>, signal?: AbortSignal): Promise<ReplyOf<'search'>>;
  /** The workspace rendered by the store (hidden properties never leave it); unknown URIs are listed in `missing`. */
  segments(request: RequestOf<'segments'>, signal?: AbortSignal): Promise<ReplyOf<'segments'>>;
  /** Atomic, one undo group; a repeated `idempotencyKey` is answered (`replayed`) without applying again. */
  apply(request: RequestOf<'apply'>, signal?: AbortSignal): Promise<ReplyOf<'apply'>>;
  /** Sets the source → target relations (one-way); returns the previous list. */
  relationships(request: RequestOf<'relationships'>, signal?: AbortSignal): Promise<ReplyOf<'relationships'>>;
  aspectsList(request?: RequestOf<'aspectsList'>, signal?: AbortSignal): Promise<ReplyOf<'aspectsList'>>;
  /** ALREADY_EXISTS when the name is taken. */
  aspectsCreate(request: RequestOf<'aspectsCreate'>, signal?: AbortSignal): Promise<ReplyOf<'aspectsCreate'>>;
  /** Removes the aspect with its elements (undoable, data included). NOT_FOUND when it does not exist. */
  aspectsRemove(request: RequestOf<'aspectsRemove'>, signal?: AbortSignal): Promise<ReplyOf<'aspectsRemove'>>;
  /** Undoes the newest group (`status: 'empty'` when there is none). */
  undo(request?: RequestOf<'undo'>, signal?: AbortSignal): Promise<ReplyOf<'undo'>>;
  redo(request?: RequestOf<'redo'>, signal?: AbortSignal): Promise<ReplyOf<'redo'>>;
  /** Recent undo/redo history, newest first (default 10 per stack). */
  operations(request?: RequestOf<'operations'>, signal?: AbortSignal): Promise<ReplyOf<'operations'>>;
  /** The one way to store a backlog item; identical content merges, keeping the higher priority. */
  backlogAdd(request: RequestOf<'backlogAdd'>, signal?: AbortSignal): Promise<ReplyOf<'backlogAdd'>>;
  /** Highest priority first, then oldest first. */
  backlogList(request?: RequestOf<'backlogList'>, signal?: AbortSignal): Promise<ReplyOf<'backlogList'>>;
  /** The entries that existed and were removed (unknown ids are ignored). */
  backlogRemove(request: RequestOf<'backlogRemove'>, signal?: AbortSignal): Promise<ReplyOf<'backlogRemove'>>;
  /** `merge` refuses existing aspects (ALREADY_EXISTS); `replace` overwrites them. One undo group. */
  import(request: RequestOf<'import'>, signal?: AbortSignal): Promise<ReplyOf<'import'>>;
  /** Every aspect, or the named ones (NOT_FOUND for an unknown name), with their elements. */
  export(request?: RequestOf<'export'>, signal?: AbortSignal): Promise<ReplyOf<'export'>>;
}

// Every method of the port has its contract and subject (a compile error otherwise).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const portMatchesCalls: Same<keyof ResourceService, ResourceMethod> = true;
void portMatchesCalls;

export type { ResourceMethod };
