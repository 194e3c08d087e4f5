/**
 * Repeats `attempt` until `done` holds for its result, at most `rounds` times, and returns the last result (the test
 * then asserts on it, so a result that never settles fails with the full picture). For scatter-gathers such as tool
 * discovery, which end once answers stop arriving: on a loaded machine one round can miss a late answer, and
 * missing one is by design not fatal, so a test that needs every answer asks again instead of widening a window.
 */
export async function settle<T>(
  attempt: () => Promise<T>,
  done: (result: T) => boolean,
  rounds = 10,
): Promise<T> {
  let result = await attempt();
  for (let round = 1; round < rounds && !done(result); round++) result = await attempt();
  return result;
}
