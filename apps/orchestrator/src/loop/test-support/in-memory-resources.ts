import type {
  Aspect,
  AspectsListReply,
  BacklogEntry,
  BacklogListReply,
  BacklogRemoveReply,
  JsonObject,
  OperationHistoryEntry,
  OperationsListReply,
  SearchReply,
  SearchRequest,
  SegmentData,
  SegmentsReply,
  SegmentsRequest,
} from '@novelrag/contracts';
import { CancelledError } from '@novelrag/agenturn';
import type { ResourceReader } from '../ports';

export interface FakeElement {
  readonly uri: string;
  readonly properties?: JsonObject;
  readonly relationships?: Record<string, string[]>;
  readonly childIds?: Record<string, string[]>;
}

/**
 * A `ResourceReader` over fixed data, FOR UNIT TESTS: keyword search over ids and property values (in insertion
 * order), segments with property and URI filtering like the store's, a backlog and an operation history. Records every
 * request so tests can assert what the loop asked for.
 */
export class InMemoryResources implements ResourceReader {
  readonly searches: SearchRequest[] = [];
  readonly segmentRequests: SegmentsRequest[] = [];
  readonly removedBacklog: string[] = [];
  private readonly elements = new Map<string, FakeElement>();
  private backlog: BacklogEntry[];

  constructor(
    private readonly aspectList: readonly Aspect[] = [],
    elements: readonly FakeElement[] = [],
    backlog: readonly BacklogEntry[] = [],
    private readonly history: readonly OperationHistoryEntry[] = [],
  ) {
    for (const e of elements) this.elements.set(e.uri, e);
    this.backlog = [...backlog];
  }

  static aspect(name: string, description = `${name} aspect`): Aspect {
    return { name, description, childrenKeys: [], metadata: {} };
  }

  async search(req: SearchRequest, signal?: AbortSignal): Promise<SearchReply> {
    this.check(signal);
    this.searches.push(req);
    const needle = req.query.toLowerCase();
    const hits = [...this.elements.values()]
      .filter((e) => {
        const text = [
          e.uri.split('/').pop() ?? '',
          ...Object.values(e.properties ?? {}).map((v) => JSON.stringify(v)),
        ]
          .join(' ')
          .toLowerCase();
        return text.includes(needle);
      })
      .slice(0, req.limit ?? 5)
      .map((e, i) => ({
        uri: e.uri,
        score: 1 / (1 + i),
        element: {
          uri: e.uri,
          id: e.uri.split('/').pop() ?? '',
          aspect: e.uri.split('/')[1] ?? '',
          properties: e.properties ?? {},
          relationships: e.relationships ?? {},
          childIds: e.childIds ?? {},
        },
      }));
    return { hits };
  }

  async segments(req: SegmentsRequest, signal?: AbortSignal): Promise<SegmentsReply> {
    this.check(signal);
    this.segmentRequests.push(req);
    const excluded = new Set(req.excludedUris);
    const segments: SegmentData[] = [];
    const missing: string[] = [];
    for (const spec of req.segments) {
      const hidden = new Set(spec.excludedProperties);
      const visible = (o: JsonObject) =>
        Object.fromEntries(Object.entries(o).filter(([k]) => !hidden.has(k)));
      if (spec.uri === '/') {
        segments.push({
          kind: 'root',
          uri: '/',
          aspects: this.aspectList.map((a) => a.name).filter((n) => !excluded.has(`/${n}`)),
        });
        continue;
      }
      const aspect = this.aspectList.find((a) => `/${a.name}` === spec.uri);
      if (aspect) {
        segments.push({
          kind: 'aspect',
          uri: spec.uri,
          name: aspect.name,
          metadata: visible({ description: aspect.description ?? null, ...aspect.metadata }),
          excludedProperties: [...spec.excludedProperties],
          rootIds: this.rootIds(aspect.name).filter((id) => !excluded.has(`/${aspect.name}/${id}`)),
        });
        continue;
      }
      const element = this.elements.get(spec.uri);
      if (!element) {
        missing.push(spec.uri);
        continue;
      }
      segments.push({
        kind: 'element',
        uri: element.uri,
        id: element.uri.split('/').pop() ?? '',
        aspect: element.uri.split('/')[1] ?? '',
        properties: visible(element.properties ?? {}),
        excludedProperties: [...spec.excludedProperties],
        childIds: Object.fromEntries(
          Object.entries(element.childIds ?? {}).map(([k, ids]) => [
            k,
            ids.filter((id) => !excluded.has(`${element.uri}/${id}`)),
          ]),
        ),
        relationships: Object.fromEntries(
          Object.entries(element.relationships ?? {}).filter(([uri]) => !excluded.has(uri)),
        ),
      });
    }
    return { segments, missing };
  }

  async aspects(signal?: AbortSignal): Promise<AspectsListReply> {
    this.check(signal);
    return { aspects: [...this.aspectList] };
  }

  async backlogList(limit: number, signal?: AbortSignal): Promise<BacklogListReply> {
    this.check(signal);
    return { entries: [...this.backlog].sort((a, b) => b.priority - a.priority).slice(0, limit) };
  }

  async backlogRemove(ids: string[], signal?: AbortSignal): Promise<BacklogRemoveReply> {
    this.check(signal);
    const removed = this.backlog.filter((e) => ids.includes(e.id));
    this.backlog = this.backlog.filter((e) => !ids.includes(e.id));
    this.removedBacklog.push(...removed.map((e) => e.id));
    return { removed };
  }

  async operations(limit: number, signal?: AbortSignal): Promise<OperationsListReply> {
    this.check(signal);
    return { entries: this.history.slice(0, limit) };
  }

  private rootIds(aspect: string): string[] {
    return [...this.elements.keys()]
      .filter((uri) => uri.split('/').length === 3 && uri.startsWith(`/${aspect}/`))
      .map((uri) => uri.split('/')[2] ?? '');
  }

  private check(signal: AbortSignal | undefined): void {
    if (signal?.aborted) throw new CancelledError('resource request cancelled');
  }
}
