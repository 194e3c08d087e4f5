import type { INestApplication } from '@nestjs/common';
import {
  ApiResponse,
  DocumentBuilder,
  type OpenAPIObject,
  type StandardSchemaConverter,
  SwaggerModule,
} from '@nestjs/swagger';
import {
  AspectsListReply,
  BacklogAddReply,
  BacklogListReply,
  BacklogRemoveReply,
  ElementInput,
  ErrorBody,
  FindReply,
  GoalAccepted,
  GoalPage,
  GoalSummary,
  GoalSummaryPage,
  HealthReport,
  InteractionAnswerAck,
  AnswerDelta,
  JsonValue,
  MemoryRemoved,
  NextGoalResult,
  OperationsListReply,
  PublicGoal,
  ResourceElement,
  SearchReply,
  ServicesReply,
  ToolCatalogue,
  TraceEvent,
  UndoRedoReply,
} from '@novelrag/contracts';
import {
  ImportBatchReply,
  ImportProgressEvent,
  ImportReport,
  NovelragProject,
} from '@novelrag/resource-client';
import { z } from 'zod';

type Schema = Record<string, unknown>;

/**
 * The reply bodies of the API, as the contracts define them (the one source of truth: the gateway parses bus replies
 * with these schemas and browser clients are typed by them). Named here, they become `components.schemas`.
 */
const COMPONENTS = {
  ErrorBody,
  GoalAccepted,
  NextGoalResult,
  MemoryRemoved,
  PublicGoal,
  GoalPage,
  GoalSummary,
  GoalSummaryPage,
  InteractionAnswerAck,
  AnswerDelta,
  TraceEvent,
  FindReply,
  SearchReply,
  AspectsListReply,
  OperationsListReply,
  UndoRedoReply,
  BacklogListReply,
  BacklogAddReply,
  BacklogRemoveReply,
  ToolCatalogue,
  ServicesReply,
  HealthReport,
  ImportReport,
  ImportProgressEvent,
  ImportBatchReply,
  NovelragProject,
  Liveness: z.strictObject({ ok: z.literal(true) }),
  // recursive: named so they are referenced, not inlined
  ResourceElement,
  ElementInput,
  JsonValue,
} as const satisfies Record<string, z.ZodType>;
type ComponentName = keyof typeof COMPONENTS;

const SSE = 'text/event-stream';
const SSE_DESCRIPTION =
  'Server-Sent Events. Each trace event is sent as `id: <TRACE stream sequence>`, `event: <kind>` and `data: <the ' +
  'TraceEvent as JSON>` (resume with Last-Event-ID). Also sent: `event: end` (data `{}`) after the final event of a ' +
  'goal, and `event: error` (data `{code, message}`) when the stream fails; `: ping` comments every 15 s. The ' +
  'events of one goal also carry, while a `rag` or `assistant` goal writes its answer and the client is connected, ' +
  '`event: answer.delta` without an id (data: the AnswerDelta as JSON: the next piece of the answer); they are not ' +
  'replayed, the whole answer is in the `rag.answer` or `assistant.output` trace event.';

/**
 * The 2xx reply of every operation: `METHOD path` → status (or statuses, each with its description) and component (an
 * SSE stream for the trace routes).
 */
interface Reply {
  status: number | Record<number, string>;
  body: ComponentName;
  sse?: true;
  /** Also answered as a stream of these lines with `Accept: application/x-ndjson`. */
  ndjson?: ComponentName;
}
const REPLIES: Record<string, Reply> = {
  'POST /v1/goals': { status: { 202: 'Accepted and stored in the GOALS stream' }, body: 'GoalAccepted' },
  'POST /v1/goals/next': {
    status: { 202: 'A goal was chosen and queued', 200: 'Nothing worth doing now: {goal: null}' },
    body: 'NextGoalResult',
  },
  'DELETE /v1/threads/{id}/memory': { status: 200, body: 'MemoryRemoved' },
  'GET /health/live': { status: 200, body: 'Liveness' },
  'GET /health/ready': { status: 200, body: 'HealthReport' },
  'GET /v1/goals': { status: 200, body: 'GoalPage' },
  'GET /v1/goals/{id}': { status: 200, body: 'PublicGoal' },
  'POST /v1/goals/{id}/cancel': { status: 202, body: 'PublicGoal' },
  'POST /v1/goals/{id}/interactions/{iid}': {
    status: {
      200: 'The orchestrator holding the goal took the answer',
      202: 'Stored; applied when the goal resumes',
    },
    body: 'InteractionAnswerAck',
  },
  'GET /v1/goal-summaries': { status: 200, body: 'GoalSummaryPage' },
  'GET /v1/goal-summaries/{id}': { status: 200, body: 'GoalSummary' },
  'GET /v1/goals/{id}/events': { status: 200, body: 'TraceEvent', sse: true },
  'GET /v1/events': { status: 200, body: 'TraceEvent', sse: true },
  'GET /v1/resources': { status: 200, body: 'FindReply' },
  'POST /v1/resources/search': { status: 200, body: 'SearchReply' },
  'GET /v1/aspects': { status: 200, body: 'AspectsListReply' },
  'GET /v1/operations': { status: 200, body: 'OperationsListReply' },
  'POST /v1/undo': { status: 200, body: 'UndoRedoReply' },
  'POST /v1/redo': { status: 200, body: 'UndoRedoReply' },
  'GET /v1/backlog': { status: 200, body: 'BacklogListReply' },
  'POST /v1/backlog': { status: 201, body: 'BacklogAddReply' },
  'DELETE /v1/backlog/{id}': { status: 200, body: 'BacklogRemoveReply' },
  'GET /v1/tools': { status: 200, body: 'ToolCatalogue' },
  'GET /v1/services': { status: 200, body: 'ServicesReply' },
  'POST /v1/projects/import': { status: 200, body: 'ImportReport', ndjson: 'ImportProgressEvent' },
  'POST /v1/projects/import/upload': { status: 200, body: 'ImportReport', ndjson: 'ImportProgressEvent' },
  'POST /v1/projects/import/batches': { status: 200, body: 'ImportBatchReply' },
  'GET /v1/projects/export': { status: 200, body: 'NovelragProject' },
};

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** The contracts as OpenAPI 3.0 component schemas, references between them by name. */
export function contractComponents(): Record<string, Schema> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(COMPONENTS)) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, {
    target: 'openapi-3.0',
    uri: (id) => `#/components/schemas/${id}`,
    io: 'output',
    unrepresentable: 'any',
    cycles: 'ref',
    reused: 'inline',
  }) as { schemas: Record<string, Schema> };
  // Schemas used by several components without a name of their own come as `__shared` definitions: named `SharedN`.
  const { __shared: shared, ...named } = schemas;
  const out: Record<string, Schema> = {};
  for (const [name, def] of Object.entries((shared?.['definitions'] ?? {}) as Record<string, Schema>))
    out[`Shared_${name}`] = def;
  for (const [name, schema] of Object.entries(named)) out[name] = schema;
  const text = JSON.stringify(out)
    .replace(/#\/components\/schemas\/__shared#\/definitions\/(\w+)/g, '#/components/schemas/Shared_$1')
    .replace(/"\$id":"[^"]*",?/g, '')
    .replace(/,}/g, '}');
  return JSON.parse(text) as Record<string, Schema>;
}

/**
 * How `@nestjs/swagger` turns the zod schema of a `@Body({ schema })` or `@Query({ schema })` into OpenAPI: with the
 * same generator as the components (`z.toJSONSchema`, descriptions from `.meta()`), a contract that is a named
 * component (a recursive one: JsonValue, ElementInput) referenced by its name rather than repeated.
 */
export const requestSchemaConverter: StandardSchemaConverter = (schema, { schemaType }) => {
  if (!(schema instanceof z.ZodType)) return undefined;
  const ids = new Map<unknown, string>(Object.entries(COMPONENTS).map(([id, component]) => [component, id]));
  const metadata = {
    get: (s: z.core.$ZodType) => {
      const meta = z.globalRegistry.get(s);
      const id = ids.get(s);
      return id === undefined || s === schema ? meta : { ...meta, id };
    },
  } as unknown as z.core.$ZodRegistry<z.core.GlobalMeta>;
  const json = z.toJSONSchema(schema, {
    target: 'openapi-3.0',
    io: schemaType,
    unrepresentable: 'any',
    cycles: 'ref',
    reused: 'inline',
    metadata,
  }) as Schema;
  const { definitions, $defs, $schema: _dialect, ...body } = json;
  return { schema: body, components: { ...(definitions as Schema), ...($defs as Schema) } };
};

/** An error answer (`{code, message, details?}`) documented on an operation or a controller. */
export function ApiErrorResponse(status: number, description: string): MethodDecorator & ClassDecorator {
  return ApiResponse({ status, description, content: { 'application/json': { schema: ref('ErrorBody') } } });
}

/** What the global auth guard answers on any route that needs a key, when the route documents no 4xx of its own. */
function addAuthErrors(responses: Record<string, object>): void {
  if (Object.keys(responses).some((status) => status.startsWith('4'))) return;
  const error = (description: string) => ({
    description,
    content: { 'application/json': { schema: ref('ErrorBody') } },
  });
  responses['401'] = error('Missing or invalid API key (UNAUTHORIZED)');
  responses['429'] = error('Rate limited (RATE_LIMITED)');
}

/** Puts each operation's typed 2xx reply (and the SSE media type) into the document Nest generated from the DTOs. */
export function typeReplies(document: OpenAPIObject): OpenAPIObject {
  const schemas = { ...(document.components?.schemas ?? {}), ...contractComponents() };
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of ['get', 'post', 'delete'] as const) {
      const reply = REPLIES[`${method.toUpperCase()} ${path}`];
      const operation = item[method];
      const responses = operation?.responses as Record<string, { description?: string }> | undefined;
      if (!operation || !reply || !responses) continue;
      operation.security ??= []; // no bearer key: a public route (health)
      if (operation.security.length > 0) addAuthErrors(responses);
      const statuses =
        typeof reply.status === 'number'
          ? { [reply.status]: responses[String(reply.status)]?.description }
          : reply.status;
      // The typed reply replaces what Nest guessed (a bare 200, or a 201 for a POST that answers 200).
      for (const status of Object.keys(responses))
        if (/^2\d\d$/.test(status) && !(status in statuses)) delete responses[status];
      for (const [status, description] of Object.entries(statuses))
        responses[status] = {
          description: reply.sse ? SSE_DESCRIPTION : description || 'OK',
          content: {
            [reply.sse ? SSE : 'application/json']: { schema: ref(reply.body) },
            ...(reply.ndjson ? { 'application/x-ndjson': { schema: ref(reply.ndjson) } } : {}),
          },
        } as { description: string };
    }
  }
  return { ...document, components: { ...document.components, schemas } };
}

/** The whole document: Nest's (routes, parameters, request DTOs, errors) with the contract-typed replies. */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('NovelRAG API')
    .setDescription(
      'Goals pursued by the NovelRAG agent over a knowledge repository. Errors are `{code, message, details?}`.',
    )
    .setVersion('0.1.0')
    .setLicense('MIT', 'https://opensource.org/licenses/MIT')
    .addServer('/', 'This gateway')
    .addBearerAuth()
    .build();
  return typeReplies(
    SwaggerModule.createDocument(app, config, { standardSchemaConverter: requestSchemaConverter }),
  );
}
