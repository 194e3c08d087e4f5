import {
  ERROR_CODE_INFO,
  type ErrorCode,
  type JsonObject,
  MAX_MESSAGE_BYTES,
  MAX_TOOL_RESULT_CHARS,
  type ToolMetadata,
} from '@novelrag/contracts';
import { type Answer, type ToolProbe, describeAnswer, sameAnswer } from './probe';
import { type CheckResult, fail, pass, skip } from './report';
import { invalidParams } from './sample-params';

const codeOf = (a: Answer): string | undefined =>
  a.output?.type === 'error' ? a.output.error.code : undefined;

/** Judges an answer that must be the error `code`. */
function expectError(check: string, answer: Answer, code: ErrorCode, what: string): CheckResult {
  if (codeOf(answer) === code) return pass(check, `${what}: ${code}`);
  return fail(check, `${what}: expected error ${code}, got ${describeAnswer(answer)}`);
}

/** A call with valid parameters gets a `ToolOutput` (a result, or a coded error). */
export async function checkCall(probe: ToolProbe, params: JsonObject): Promise<CheckResult> {
  const answer = await probe.send(probe.invocation(params));
  if (!answer.output) return fail('call', `with ${JSON.stringify(params)}: ${describeAnswer(answer)}`);
  if (codeOf(answer) === 'VALIDATION_FAILED')
    return fail(
      'call',
      `the tool refused the sample parameters ${JSON.stringify(params)}; pass --params '<json>'`,
    );
  return pass('call', `with ${JSON.stringify(params)}: ${describeAnswer(answer)}`);
}

/** Parameters the schema refuses are answered VALIDATION_FAILED. */
export async function checkValidation(probe: ToolProbe, metadata?: ToolMetadata): Promise<CheckResult> {
  const bad = metadata ? invalidParams(metadata.inputSchema) : undefined;
  if (!bad) return skip('validation', 'the schema accepts every object the checker can build');
  const answer = await probe.send(probe.invocation(bad.params as JsonObject));
  return expectError('validation', answer, 'VALIDATION_FAILED', `params with ${bad.why}`);
}

/** A body that is no `ToolInvocation`, and one addressed to another tool, are answered VALIDATION_FAILED. */
export async function checkMalformed(probe: ToolProbe, params: JsonObject): Promise<CheckResult> {
  const junk = await probe.send({ schemaVersion: 1, params });
  const junkVerdict = expectError(
    'malformed invocation',
    junk,
    'VALIDATION_FAILED',
    'an incomplete invocation',
  );
  if (junkVerdict.status === 'fail') return junkVerdict;
  const other = await probe.send(probe.invocation(params, { tool: `${probe.tool}Elsewhere` }));
  return expectError('malformed invocation', other, 'VALIDATION_FAILED', 'an invocation naming another tool');
}

/** An invocation whose deadline already passed is answered TIMEOUT (not run, not left unanswered). */
export async function checkDeadline(probe: ToolProbe, params: JsonObject): Promise<CheckResult> {
  const answer = await probe.send(probe.invocation(params, { deadline: Date.now() - 1_000 }));
  return expectError('deadline', answer, 'TIMEOUT', 'a deadline already passed');
}

/**
 * The goal's cancel event stops the call: CANCELLED. With `slow` parameters the call must last long enough to be
 * cancelled; without them a result that came first is accepted.
 */
export async function checkCancel(
  probe: ToolProbe,
  params: JsonObject,
  slow: JsonObject | undefined,
): Promise<CheckResult> {
  const answer = await probe.sendCancelled(probe.invocation(slow ?? params));
  if (slow) return expectError('cancel', answer, 'CANCELLED', 'a slow call cancelled');
  if (answer.output?.type === 'result')
    return pass('cancel', 'finished before the cancel (pass --slow-params to test a running call)');
  return expectError('cancel', answer, 'CANCELLED', 'a call cancelled');
}

/**
 * The same invocation id twice, one after the other and then at once: a tool that writes and is not idempotent
 * answers the same both times (it runs once); a read-only or idempotent one may run again.
 */
export async function checkDuplicates(
  probe: ToolProbe,
  params: JsonObject,
  metadata?: ToolMetadata,
): Promise<CheckResult[]> {
  const mayRerun = metadata !== undefined && (metadata.readOnly || metadata.idempotent);
  const judge = (check: string, a: Answer, b: Answer): CheckResult => {
    if (!a.output || !b.output) return fail(check, `${describeAnswer(a)} / ${describeAnswer(b)}`);
    if (sameAnswer(a, b)) return pass(check, `both answered ${describeAnswer(a)}`);
    if (mayRerun) return pass(check, 'answers differ, allowed: the tool is read-only or idempotent');
    return fail(
      check,
      `the repeat answered ${describeAnswer(b)} after ${describeAnswer(a)}: a non-idempotent tool must answer a repeated invocationId with the first run's output`,
    );
  };
  const first = probe.invocation(params);
  const a = await probe.send(first);
  const b = await probe.send({ ...first, attempt: 2 });
  const twin = probe.invocation(params);
  const [c, d] = await Promise.all([probe.send(twin), probe.send({ ...twin, attempt: 2 })]);
  return [judge('duplicate (sequential)', a, b), judge('duplicate (concurrent)', c, d)];
}

/** Every error answer carries the micro headers: `<CODE>: <message>` on one line and the code's status. */
export function checkEnvelopes(answers: readonly Answer[]): CheckResult {
  const errors = answers.filter((a) => a.output?.type === 'error');
  if (errors.length === 0) return skip('error headers', 'no error answer was received');
  const problems = new Set<string>();
  for (const a of errors) {
    const code = codeOf(a) as ErrorCode;
    const status = String(ERROR_CODE_INFO[code].httpStatus);
    if (!a.serviceError) problems.add(`${code} answer without the Nats-Service-Error header`);
    else if (!a.serviceError.startsWith(`${code}:`))
      problems.add(`Nats-Service-Error "${a.serviceError.slice(0, 60)}" does not start with "${code}:"`);
    if (a.serviceErrorCode !== status)
      problems.add(
        `${code} answer with Nats-Service-Error-Code ${String(a.serviceErrorCode)}, expected ${status}`,
      );
  }
  return problems.size > 0
    ? fail('error headers', [...problems].join('; '))
    : pass('error headers', `${errors.length} error answers with both headers and the right status`);
}

/** Every answer fits one message and the result cap, and is a `ToolOutput`. */
export function checkCaps(answers: readonly Answer[]): CheckResult {
  const over = answers.filter((a) => a.bytes > MAX_MESSAGE_BYTES);
  const outside = answers.filter((a) => a.bytes > 0 && !a.output).map((a) => a.problem ?? '');
  if (over.length > 0) return fail('size caps', `${over.length} answers exceed ${MAX_MESSAGE_BYTES} bytes`);
  if (outside.length > 0)
    return fail(
      'size caps',
      `answers outside the ToolOutput contract (result ≤ ${MAX_TOOL_RESULT_CHARS} characters): ${outside.join(' | ')}`,
    );
  return pass('size caps', `${answers.length} answers within the caps`);
}
