// What the goal benchmarks share: a scripted model scenario that finalizes every goal in one step, and goal submission
// through the gateway's REST API.
import { Pool } from 'undici';

/** A scenario for tools/demo/scripted-llm.mjs: assessed, nothing explored, approved, finalized (four model calls). */
export function finalizeAtOnceScenario(name, model) {
  const rule = (when, json) => ({ when, reply: { json } });
  return {
    name,
    model,
    rules: [
      rule(
        { schema: 'PursuitAssessment' },
        {
          finished_tasks: [],
          remaining_work_summary: 'answer',
          required_context: 'none',
          expected_actions: 'finalize',
          boundary_conditions: [],
          exception_conditions: [],
          success_criteria: ['answered'],
        },
      ),
      rule(
        { schema: 'DiscoveryPlan' },
        { discovery_analysis: 'enough', search_queries: [], query_resources: [], expand_tools: [] },
      ),
      rule(
        { schema: 'RefinementDecision' },
        {
          analysis: 'fine',
          verdict: 'approve',
          approval: { ready: true, confidence: 'high', notes: '' },
          refinement: null,
          exploration_hints: null,
        },
      ),
      {
        when: { tool: 'Finalize' },
        reply: {
          toolCall: {
            name: 'Finalize',
            arguments: { status: 'success', response: 'done', evidence: [], gaps: [] },
          },
        },
      },
    ],
  };
}

/** `POST /v1/goals` at the gateway `gatewayUrl`: resolves to the 202 body (`{ goalId, … }`), rejects otherwise. */
export function goalPoster(gatewayUrl) {
  return async (body) => {
    const res = await fetch(`${gatewayUrl}/v1/goals`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (res.status !== 202) throw new Error(`POST /v1/goals answered ${res.status}: ${await res.text()}`);
    return res.json();
  };
}

/** `POST /v1/goals` through a keep-alive pool of `connections`: resolves to the 202 body, rejects otherwise. */
export function keepAlivePoster(gatewayUrl, connections) {
  const pool = new Pool(gatewayUrl, { connections, pipelining: 1 });
  const post = async (body) => {
    const res = await pool.request({
      path: '/v1/goals',
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (res.statusCode !== 202) {
      throw new Error(`POST /v1/goals answered ${res.statusCode}: ${await res.body.text()}`);
    }
    return res.body.json();
  };
  return { post, close: () => pool.close() };
}
