import { Controller, Get, Headers, Inject, Param, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiOperation, ApiProduces, ApiQuery, ApiTags } from '@nestjs/swagger';
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { NATS_CONNECTION } from '@novelrag/bus';
import { FINAL_TRACE_KINDS, Streams, Subjects, TRACE_KINDS, type TraceEvent } from '@novelrag/contracts';
import { Metrics } from '@novelrag/telemetry';
import { GoalsService } from '../goals/goals.service';
import { ApiError } from '../http/api-error';
import { relayAnswerDeltas } from './answer-deltas';
import { readTrace } from './trace-stream';

interface SseRequest {
  on(event: 'close', listener: () => void): void;
}
interface SseResponse {
  status(code: number): SseResponse;
  setHeader(name: string, value: string): void;
  flushHeaders(): void;
  write(chunk: string): boolean;
  end(): void;
  writableEnded: boolean;
  once(event: 'drain' | 'close', listener: () => void): void;
  off(event: 'drain' | 'close', listener: () => void): void;
}

/** Resolves when `res` can take more (its buffer drained) or the connection ends: a slow reader slows the replay. */
function drained(res: SseResponse, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(); // the client is gone: 'close' has fired already
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
    signal.addEventListener('abort', done, { once: true });
  });
}

const HEARTBEAT_MS = 15_000;
/** Bound on one SSE connection; clients reconnect with Last-Event-ID. */
const MAX_CONNECTION_MS = 60 * 60_000;

function lastEventId(header: string | undefined, query: string | undefined): number | undefined {
  const raw = header ?? query;
  if (raw === undefined || raw === '') return undefined;
  if (!/^\d{1,15}$/.test(raw))
    throw new ApiError('VALIDATION_FAILED', 'Last-Event-ID must be a non-negative integer');
  return Number(raw);
}

const THREAD_ID = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * The ops feed's filter (the stream is read whole: NATS 2.9 consumers take one subject filter, so kinds are matched
 * here). Unknown kinds and malformed thread ids are VALIDATION_FAILED before the stream starts.
 */
function feedFilter(
  kinds: string | undefined,
  threadId: string | undefined,
): ((event: TraceEvent) => boolean) | undefined {
  const wanted = kinds !== undefined ? new Set(kinds.split(',').map((k) => k.trim())) : undefined;
  const unknown = [...(wanted ?? [])].filter((k) => !(TRACE_KINDS as readonly string[]).includes(k));
  if (unknown.length > 0 || wanted?.size === 0)
    throw new ApiError('VALIDATION_FAILED', `unknown trace kinds: ${unknown.join(', ').slice(0, 200)}`, {
      known: TRACE_KINDS,
    });
  if (threadId !== undefined && !THREAD_ID.test(threadId))
    throw new ApiError('VALIDATION_FAILED', 'threadId must be 1-128 characters of A-Z a-z 0-9 _ -');
  if (!wanted && threadId === undefined) return undefined;
  return (event) =>
    (!wanted || wanted.has(event.kind)) && (threadId === undefined || event.threadId === threadId);
}

/** Server-Sent Events of the trace: replayed from the TRACE stream, then live; resumable; with heartbeats. */
@ApiTags('events')
@ApiBearerAuth()
@Controller('v1')
export class EventsController {
  constructor(
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    private readonly goals: GoalsService,
  ) {}

  @Get('goals/:id/events')
  @ApiOperation({
    summary:
      "One goal's trace as Server-Sent Events (plus the answer of a rag or assistant goal as `answer.delta` events while it is written); ends after the final event unless follow=true",
  })
  @ApiProduces('text/event-stream')
  @ApiHeader({ name: 'Last-Event-ID', required: false, description: 'Resume after this event id' })
  @ApiQuery({ name: 'follow', required: false, type: Boolean })
  async goalEvents(
    @Param('id') id: string,
    @Query('follow') follow: string | undefined,
    @Query('lastEventId') lastEventIdQuery: string | undefined,
    @Headers('last-event-id') lastEventIdHeader: string | undefined,
    @Req() req: SseRequest,
    @Res() res: SseResponse,
  ): Promise<void> {
    const after = lastEventId(lastEventIdHeader, lastEventIdQuery);
    await this.goals.get(id); // 404 / 400 before the stream starts
    const untilFinal = follow !== 'true';
    // A client resuming after the final event of its goal (e.g. EventSource reconnecting) gets the end at once:
    // the final event it would wait for is behind it.
    const ended = untilFinal && after !== undefined && (await this.finalAtOrBefore(id, after));
    await this.stream(req, res, Subjects.traceOfGoal(id), after, untilFinal, { ended, answersOf: id });
  }

  /** Whether the goal's final trace event is stored at or before stream sequence `seq`. */
  private async finalAtOrBefore(goalId: string, seq: number): Promise<boolean> {
    const jsm = await jetstreamManager(this.nc);
    for (const kind of FINAL_TRACE_KINDS) {
      const last = await jsm.streams
        .getMessage(Streams.trace.name, { last_by_subj: Subjects.trace(goalId, kind) })
        .catch(() => null); // none of this kind
      if (last && last.seq <= seq) return true;
    }
    return false;
  }

  /** The TRACE stream's last sequence (0 when empty). */
  private async lastStored(): Promise<number> {
    const jsm = await jetstreamManager(this.nc);
    return (await jsm.streams.info(Streams.trace.name)).state.last_seq;
  }

  @Get('events')
  @ApiOperation({
    summary:
      "Every goal's trace (the ops feed) as Server-Sent Events; follows until closed; filter by kinds and thread",
  })
  @ApiProduces('text/event-stream')
  @ApiHeader({ name: 'Last-Event-ID', required: false })
  @ApiQuery({
    name: 'kinds',
    required: false,
    description:
      'Comma-separated trace kinds to send (e.g. goal.accepted,goal.status_changed); all when absent',
  })
  @ApiQuery({ name: 'threadId', required: false, description: 'Only the goals of this thread' })
  @ApiQuery({
    name: 'from',
    required: false,
    enum: ['start', 'now'],
    description:
      'Without Last-Event-ID: replay the stored trace (start, the default) or only new events (now)',
  })
  async allEvents(
    @Query('lastEventId') lastEventIdQuery: string | undefined,
    @Query('from') from: string | undefined,
    @Query('kinds') kinds: string | undefined,
    @Query('threadId') threadId: string | undefined,
    @Headers('last-event-id') lastEventIdHeader: string | undefined,
    @Req() req: SseRequest,
    @Res() res: SseResponse,
  ): Promise<void> {
    const after = lastEventId(lastEventIdHeader, lastEventIdQuery);
    const filter = feedFilter(kinds, threadId);
    if (from !== undefined && from !== 'start' && from !== 'now')
      throw new ApiError('VALIDATION_FAILED', 'from must be "start" or "now"');
    // `now`: after the last stored event, read before the response starts, so a client that has the response head
    // gets every event stored from then on.
    const start = after ?? (from === 'now' ? await this.lastStored() : undefined);
    await this.stream(req, res, Subjects.traceAll, start, false, { filter });
  }

  private async stream(
    req: SseRequest,
    res: SseResponse,
    subject: string,
    after: number | undefined,
    untilFinal: boolean,
    options: {
      ended?: boolean;
      fromNow?: boolean;
      filter?: ((event: TraceEvent) => boolean) | undefined;
      /** Also relay this goal's live answer pieces. */
      answersOf?: string;
    } = {},
  ) {
    const { ended = false, filter, answersOf } = options;
    const abort = new AbortController();
    req.on('close', () => abort.abort());
    const limit = setTimeout(() => abort.abort(), MAX_CONNECTION_MS);
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache, no-transform');
    res.setHeader('Connection', 'keep-alive');
    res.setHeader('X-Accel-Buffering', 'no');
    res.flushHeaders();
    res.write('retry: 2000\n\n');
    if (ended) {
      res.write('event: end\ndata: {}\n\n');
      clearTimeout(limit);
      res.end();
      return;
    }
    const heartbeat = setInterval(() => res.write(': ping\n\n'), HEARTBEAT_MS);
    const stopDeltas = answersOf
      ? relayAnswerDeltas(this.nc, answersOf, (chunk) => {
          if (!res.writableEnded) res.write(chunk);
        })
      : () => undefined;
    Metrics.sseClients.inc();
    try {
      for await (const { id, event } of readTrace(this.nc, {
        subject,
        signal: abort.signal,
        untilFinal,
        ...(after !== undefined ? { after } : {}),
      })) {
        if (filter && !filter(event)) continue;
        // Backpressure: a client that reads slowly (or not at all) holds the replay instead of the gateway's memory.
        if (!res.write(`id: ${id}\nevent: ${event.kind}\ndata: ${JSON.stringify(event)}\n\n`))
          await drained(res, abort.signal);
      }
      if (!abort.signal.aborted) res.write('event: end\ndata: {}\n\n');
    } catch {
      if (!res.writableEnded)
        res.write(
          `event: error\ndata: ${JSON.stringify({ code: 'UNAVAILABLE', message: 'the trace stream failed; reconnect with Last-Event-ID' })}\n\n`,
        );
    } finally {
      stopDeltas();
      Metrics.sseClients.dec();
      clearInterval(heartbeat);
      clearTimeout(limit);
      if (!res.writableEnded) res.end();
    }
  }
}
