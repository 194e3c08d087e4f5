import type { ChatUsage } from './chat-model';

/**
 * What a failed model call had already cost. A call can fail after the provider charged for it: a validation retry
 * that stayed invalid, an answer stream that broke off or was cancelled mid-answer. Without this the goal's token
 * budget would count such a call as free. Kept beside the error (not in its details, which reach traces and clients)
 * so it survives the adapter's error mapping unchanged.
 */
const SPENT = new WeakMap<object, ChatUsage>();

/** Records on `err` (an object) what the failed call had spent; returns `err`, for `throw withSpentUsage(err, …)`. */
export function withSpentUsage<E>(err: E, usage: ChatUsage | undefined): E {
  if (usage && usage.totalTokens > 0 && typeof err === 'object' && err !== null) SPENT.set(err, usage);
  return err;
}

/** What the failed call behind `err` had spent, if it was recorded. */
export function spentUsageOf(err: unknown): ChatUsage | undefined {
  return typeof err === 'object' && err !== null ? SPENT.get(err) : undefined;
}
