import type {
  Aspect,
  AspectDump,
  BacklogEntry,
  ElementInput,
  JsonObject,
  OperationHistoryEntry,
  SearchRequest,
  SegmentsRequest,
} from '@novelrag/contracts';
import type { Embedder } from '@novelrag/repository';
import {
  type RepositoryResourceService,
  type RequestOf,
  openInMemoryResourceService,
} from '@novelrag/resource-client';
import type { ResourceReader } from '../ports';

/** A root element of the test world (`/{aspect}/{id}`). */
export interface FakeElement {
  readonly uri: string;
  readonly properties?: JsonObject;
  readonly relationships?: Record<string, string[]>;
}

/**
 * No semantic similarity: every vector is zero, so a hit's score is its keyword score alone. In a world of a few
 * elements, vector similarity would make every search return everything; the loop's tests need "found nothing".
 */
const keywordOnly: Embedder = {
  dimensions: 8,
  embed: async (texts) => texts.map(() => new Array<number>(8).fill(0)),
};

/**
 * FOR UNIT TESTS: the real repository on the in-memory store (`openInMemoryResourceService`), seeded with the given
 * aspects, root elements, backlog and history, behind the loop's `ResourceReader`. Search is by keyword only (hits
 * that match no keyword are dropped, see `keywordOnly`). Records the searches, segment requests and removed backlog
 * ids so tests can assert what the loop asked for.
 */
export class InMemoryResources implements ResourceReader {
  readonly searches: SearchRequest[] = [];
  readonly segmentRequests: SegmentsRequest[] = [];
  readonly removedBacklog: string[] = [];
  private readonly service: Promise<RepositoryResourceService>;

  constructor(
    aspects: readonly Aspect[] = [],
    elements: readonly FakeElement[] = [],
    backlog: readonly BacklogEntry[] = [],
    history: readonly OperationHistoryEntry[] = [],
  ) {
    const seed = { aspects: dumps(aspects, elements), backlog, history };
    this.service = openInMemoryResourceService({ seed, embedder: keywordOnly });
    // A seeding failure surfaces on the first call, not as an unhandled rejection.
    this.service.catch(() => undefined);
  }

  static aspect(name: string, description = `${name} aspect`): Aspect {
    return { name, description, childrenKeys: [], metadata: {} };
  }

  async search(request: SearchRequest, signal?: AbortSignal) {
    this.searches.push(request);
    const { hits } = await (await this.service).search(request, signal);
    return { hits: hits.filter((hit) => hit.score > 0) };
  }

  async segments(request: SegmentsRequest, signal?: AbortSignal) {
    this.segmentRequests.push(request);
    return (await this.service).segments(request, signal);
  }

  async aspectsList(request: RequestOf<'aspectsList'> = {}, signal?: AbortSignal) {
    return (await this.service).aspectsList(request, signal);
  }

  async backlogList(request: RequestOf<'backlogList'> = {}, signal?: AbortSignal) {
    return (await this.service).backlogList(request, signal);
  }

  async backlogRemove(request: RequestOf<'backlogRemove'>, signal?: AbortSignal) {
    const reply = await (await this.service).backlogRemove(request, signal);
    this.removedBacklog.push(...reply.removed.map((entry) => entry.id));
    return reply;
  }

  async operations(request: RequestOf<'operations'> = {}, signal?: AbortSignal) {
    return (await this.service).operations(request, signal);
  }
}

function dumps(aspects: readonly Aspect[], elements: readonly FakeElement[]): AspectDump[] {
  return aspects.map((aspect) => ({
    aspect,
    elements: elements
      .filter((element) => element.uri.startsWith(`/${aspect.name}/`))
      .map((element): ElementInput => {
        const id = element.uri.slice(aspect.name.length + 2);
        if (id.includes('/')) throw new Error(`only root elements are supported here: ${element.uri}`);
        return {
          id,
          ...(element.properties ? { properties: element.properties } : {}),
          ...(element.relationships ? { relationships: element.relationships } : {}),
        };
      }),
  }));
}
