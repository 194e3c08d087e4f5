// The `--nats-restart` part of bench/takeover.bench.mjs: how long an in-flight goal takes to go on after the private
// nats-server is killed with SIGKILL and started again on the same port over the same store.

const FINAL = ['goal.completed', 'goal.failed', 'goal.abandoned', 'goal.cancelled'];

/**
 * `count` goals run start to end without a restart (their durations are the baseline), then `count` goals each
 * interrupted by one restart 0–1 s after they started. Per restarted goal: `resume`, from the kill to the goal's first
 * trace event published after the server is back, and `finish`, from submission to its final event. Returns the
 * samples (ms) and the outcomes of the restarted goals.
 */
export async function natsRestartTrials(count, ctx, restart, log) {
  const { post, events } = ctx;
  const { waitFor } = events;
  const ofGoal = (goalId, kinds) => (e) => e.goalId === goalId && (!kinds || kinds.includes(e.kind));
  const run = async (label, i, interrupt) => {
    const postedAt = performance.now();
    const { goalId } = await post({ goal: `nats restart ${label} ${i}` });
    await waitFor(ofGoal(goalId, ['goal.started']), 60_000, `${goalId} started`);
    const trial = interrupt ? await interrupt(goalId) : {};
    const final = await waitFor(ofGoal(goalId, FINAL), 240_000, `${goalId} finished`);
    const outcome = final.event.kind;
    if (outcome !== 'goal.completed' && !trial.skipped)
      log(`${goalId} ended: ${JSON.stringify(final.event).slice(0, 600)}`);
    return { ...trial, finish: final.at - postedAt, outcome };
  };
  const baseline = [];
  for (let i = 0; i < count; i++) baseline.push((await run('baseline', i)).finish);
  log(`no restart: ${count} goals, median ${Math.round(baseline.sort((a, b) => a - b)[count >> 1])} ms`);

  const interrupt = async (goalId) => {
    await new Promise((r) => setTimeout(r, Math.random() * 1_000));
    if (events.seenAny(ofGoal(goalId, FINAL))) return { skipped: true };
    const killedAt = performance.now();
    await restart();
    const backAt = performance.now();
    const next = await waitFor((e, at) => e.goalId === goalId && at >= backAt, 240_000, `${goalId} went on`);
    return { resume: next.at - killedAt, downMs: backAt - killedAt };
  };
  const restarted = [];
  for (let i = 0; i < count; i++) {
    const r = await run('restart', i, interrupt);
    if (r.skipped) {
      log(`restart trial ${i + 1}: the goal ended before the kill (raise --llm-ms); not counted`);
      continue;
    }
    restarted.push(r);
    const show = (x) => Math.round(x);
    log(
      `restart trial ${i + 1}/${count}: server down ${show(r.downMs)} ms, goal went on after ${show(r.resume)} ms, ` +
        `finished ${show(r.finish)} ms after submission (${r.outcome})`,
    );
  }
  return { baseline, restarted };
}
