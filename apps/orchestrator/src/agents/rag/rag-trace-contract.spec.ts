import { type OperationOutcome, operationPlan, verifyCitations } from '@novelrag/agenturn';
import { TraceEvent } from '@novelrag/contracts';
import { answerCitationsOf } from './rag-answer';
import { stepEvent } from './rag-state';

// The orchestrator publishes its trace events unvalidated (TracePublisher `validate: false`) and readers skip those
// outside the contract: what it builds from tool results and model output must stay within TraceEvent's bounds.
const base = {
  schemaVersion: 1,
  goalId: 'g1',
  threadId: 't1',
  seq: 0,
  at: new Date(0).toISOString(),
  step: 0,
};

function step(tool: string, result: unknown): OperationOutcome {
  const at = new Date(0).toISOString();
  return {
    operation: operationPlan(tool, { query: 'q' }, 'why'),
    status: 'success',
    result: JSON.stringify(result),
    errorMessage: null,
    startedAt: at,
    completedAt: at,
  };
}

describe('rag trace events built from tool results and model output', () => {
  it('a grade result whose dropped document is outside the bounds gives no event outside the contract', () => {
    const kept = { doc_id: 'd1', uri: 'repo://d1', text: 'kept' };
    for (const dropped of [
      { doc_id: '', uri: 'repo://d2' },
      { doc_id: 'd2', uri: `repo://${'u'.repeat(2_000)}` },
    ]) {
      const event = stepEvent(step('grade', { documents: [kept], dropped: [dropped] }));
      if (event) expect(TraceEvent.safeParse({ ...base, ...event }).success).toBe(true);
    }
    const valid = stepEvent(
      step('grade', { documents: [kept], dropped: [{ doc_id: 'd2', uri: 'repo://d2' }] }),
    );
    expect(TraceEvent.parse({ ...base, ...valid })).toMatchObject({ dropped: [{ docId: 'd2' }] });
  });

  it('a citation of a made-up document id of any length stays within the rag.answer contract', () => {
    const madeUp = 'x'.repeat(500);
    const answer = `Yes. <cite doc_id="${madeUp}" quote="the quoted passage here">claim</cite>`;
    const verified = verifyCitations(answer, [{ docId: 'd1', uri: 'repo://d1', text: 'text' }], 'flag');
    const citations = answerCitationsOf(verified.citations);
    expect(citations).toHaveLength(1);
    expect(citations[0]).toMatchObject({ verified: false, problem: 'unknown_document' });
    expect(madeUp.startsWith(citations[0]?.docId ?? '-')).toBe(true);
    const event = {
      ...base,
      kind: 'rag.answer',
      path: 'retrieve',
      answer: verified.answer,
      citations,
      unverified: verified.unverified,
      policy: 'flag',
      toolCalls: 1,
      limited: false,
    };
    expect(TraceEvent.safeParse(event).error?.issues).toBeUndefined();
  });
});
