import { Metrics, inSpan, timed } from '@novelrag/telemetry';

/** The loop's phases, as OpenTelemetry span names (`phase <name>`) under the step span. */
export type LoopPhase = 'assessment' | 'discovery' | 'relevance' | 'decision' | 'refinement';

/** Runs one phase of the loop inside its span (the LLM calls it makes become its children), timed in the metrics. */
export function inPhase<T>(
  phase: LoopPhase,
  iteration: number | undefined,
  fn: () => Promise<T>,
): Promise<T> {
  return inSpan(
    `phase ${phase}`,
    {
      attributes: {
        'novelrag.phase': phase,
        ...(iteration === undefined ? {} : { 'novelrag.iteration': iteration }),
      },
    },
    () => timed((s) => Metrics.phaseDuration.observe({ phase }, s), fn),
  );
}
