import { AgenturnError } from './agenturn-error';
import { AGENTURN_ERROR_CODES, isAgenturnErrorCode } from './error-codes';
import { isAgenturnError, toErrorInfo } from './error-info';
import {
  BudgetExhaustedError,
  CancelledError,
  ConfigError,
  ConflictError,
  DeadlineExceededError,
  NotFoundError,
  ToolNotFoundError,
  ValidationError,
} from './errors';
import { ModelOutputError, ModelTimeoutError, ModelUnavailableError } from './model-errors';
import { TemplateNotFoundError, TemplateRenderError } from './template-errors';

describe('agenturn errors', () => {
  it.each([
    [new ConfigError('no model'), 'INTERNAL', 'config', false],
    [new ValidationError('bad'), 'VALIDATION_FAILED', 'user', false],
    [new NotFoundError('gone'), 'NOT_FOUND', 'not_found', false],
    [new ConflictError('race', { retryable: true }), 'CONFLICT', 'conflict', true],
    [new CancelledError(), 'CANCELLED', 'user', false],
    [new DeadlineExceededError('tool x', 500), 'TIMEOUT', 'timeout', true],
    [new ModelTimeoutError(1000), 'TIMEOUT', 'timeout', true],
    [new ModelUnavailableError('503'), 'MODEL_UNAVAILABLE', 'system', true],
    [
      new ModelUnavailableError('401', { retryable: false, status: 401 }),
      'MODEL_UNAVAILABLE',
      'system',
      false,
    ],
    [new TemplateNotFoundError('assess', ['zh', 'en']), 'INTERNAL', 'config', false],
    [new TemplateRenderError('assess', 'undefined variable goal'), 'INTERNAL', 'config', false],
    [new ToolNotFoundError('search'), 'TOOL_NOT_FOUND', 'not_found', false],
    [new BudgetExhaustedError('max_steps', 'too many steps'), 'BUDGET_EXHAUSTED', 'user', false],
  ] as const)('%s has code %s, fault %s, retryable %s', (error, code, fault, retryable) => {
    expect(error).toBeInstanceOf(AgenturnError);
    expect(error).toBeInstanceOf(Error);
    expect(error.code).toBe(code);
    expect(error.fault).toBe(fault);
    expect(error.retryable).toBe(retryable);
    expect(isAgenturnError(error)).toBe(true);
    expect(isAgenturnErrorCode(error.code)).toBe(true);
  });

  it('names subclasses so logs and stack traces say what failed', () => {
    expect(new ToolNotFoundError('x').name).toBe('ToolNotFoundError');
    expect(new DeadlineExceededError('op', 1).name).toBe('DeadlineExceededError');
    expect(String(new CancelledError('stop'))).toBe('CancelledError: stop');
  });

  it('ModelOutputError reports issues and output length, never the raw output', () => {
    const secret = 'the user diary says 余归 loves 林风';
    const error = new ModelOutputError({
      issues: [
        { path: 'goal', message: 'Invalid input: expected string, received number' },
        { path: '(root)', message: 'Unrecognized key' },
      ],
      rawOutputLength: secret.length,
      attempts: 3,
      purpose: 'translate',
      cause: new Error(secret),
    });
    expect(error.message).toBe(
      `model output for translate invalid after 3 attempt(s): goal: Invalid input: expected string, received number; (root): Unrecognized key (output length ${secret.length})`,
    );
    expect(error.message).not.toContain('余归');
    expect(JSON.stringify(error.details)).not.toContain('余归');
    expect(error.details).toMatchObject({
      rawOutputLength: secret.length,
      attempts: 3,
      purpose: 'translate',
    });
    expect(error.issues).toHaveLength(2);
    expect(error.retryable).toBe(false);
  });

  it('ModelOutputError without issues uses its reason and caps listed issues', () => {
    expect(
      new ModelOutputError({ issues: [], rawOutputLength: 0, attempts: 2, reason: 'refusal' }).message,
    ).toBe('model output invalid after 2 attempt(s): refusal (output length 0)');
    const many = Array.from({ length: 8 }, (_, i) => ({ path: `f${i}`, message: 'Required' }));
    expect(new ModelOutputError({ issues: many, rawOutputLength: 5, attempts: 1 }).message).toContain(
      '(+3 more)',
    );
  });

  it('keeps the cause for debugging', () => {
    const cause = new Error('socket hang up');
    expect(new ModelUnavailableError('provider unreachable', { cause }).cause).toBe(cause);
  });

  describe('isAgenturnError', () => {
    it('recognises coded look-alikes by code (envelopes, other module copies), not by class', () => {
      const envelope = { code: 'NOT_FOUND', message: 'no such element', retryable: false };
      expect(isAgenturnError(envelope)).toBe(true);
      expect(isAgenturnError(envelope, 'NOT_FOUND')).toBe(true);
      expect(isAgenturnError(envelope, 'CONFLICT')).toBe(false);
    });

    it('rejects unknown codes, plain errors and non-objects', () => {
      const sysError = Object.assign(new Error('refused'), { code: 'ECONNREFUSED', retryable: true });
      expect(isAgenturnError(sysError)).toBe(false);
      expect(isAgenturnError(new Error('x'))).toBe(false);
      expect(isAgenturnError({ code: 'NOT_FOUND', message: 'x' })).toBe(false);
      expect(isAgenturnError('NOT_FOUND')).toBe(false);
      expect(isAgenturnError(null)).toBe(false);
    });
  });

  describe('toErrorInfo', () => {
    it('keeps code, message, retryable and details of coded errors', () => {
      expect(toErrorInfo(new ToolNotFoundError('search'))).toEqual({
        code: 'TOOL_NOT_FOUND',
        message: 'Tool search not found',
        retryable: false,
        details: { tool: 'search' },
      });
      expect(toErrorInfo({ code: 'TIMEOUT', message: 'late', retryable: true })).toEqual({
        code: 'TIMEOUT',
        message: 'late',
        retryable: true,
      });
    });

    it('wraps anything else as INTERNAL, not retryable', () => {
      expect(toErrorInfo(new RangeError('out of range'))).toEqual({
        code: 'INTERNAL',
        message: 'out of range',
        retryable: false,
        details: { name: 'RangeError' },
      });
      expect(toErrorInfo('plain string')).toEqual({
        code: 'INTERNAL',
        message: 'plain string',
        retryable: false,
      });
      expect(toErrorInfo({ weird: 1 })).toEqual({
        code: 'INTERNAL',
        message: '{"weird":1}',
        retryable: false,
      });
      expect(toErrorInfo(undefined).message).toBe('unknown error (undefined)');
      expect(toErrorInfo({ code: 'EPIPE', message: 'x', retryable: true }).code).toBe('INTERNAL');
    });
  });

  it('lists every wire code once', () => {
    expect(new Set(AGENTURN_ERROR_CODES).size).toBe(AGENTURN_ERROR_CODES.length);
    expect(AGENTURN_ERROR_CODES).toEqual(
      expect.arrayContaining(['INTERNAL', 'MODEL_OUTPUT_INVALID', 'BUDGET_EXHAUSTED']),
    );
  });
});
