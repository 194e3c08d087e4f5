#!/usr/bin/env node
// `npm run chaos`: the fault-injection run (libs/testkit/src/chaos). Builds the services (incremental `tsc -b`),
// starts the whole system as processes on a private NATS (two orchestrators, two tool-runners, the model faked at the
// HTTP boundary with the demo scenario plus broken answers), submits CHAOS_GOALS concurrent goals, injects
// CHAOS_KILLS kill -9 of orchestrators and tool-runners (and one NATS restart), answers confirmations at random as a
// "human" over REST, then checks every property and prints the figures. Exit code 1 on any violation. Settings:
// CHAOS_* (docs/testing.md).
import { ensureEnv } from './ensure-env.mjs';
import { requireTs } from './ts-loader.mjs';

await ensureEnv(import.meta.url);

const { runChaos, chaosSettings, formatReport, violations } = requireTs('libs/testkit/src/chaos/index.ts');
let settings;
try {
  settings = chaosSettings(process.env);
} catch (err) {
  console.error(`[chaos] ${err.message}`);
  process.exit(2);
}
const started = Date.now();
console.log(`[chaos] ${JSON.stringify(settings)}`);
const report = await runChaos({
  ...settings,
  log: (line) => console.log(`[chaos] ${((Date.now() - started) / 1000).toFixed(1)} s ${line}`),
});
console.log(
  `\n[chaos] seed ${settings.seed}, ${((Date.now() - started) / 1000).toFixed(0)} s\n${formatReport(report)}`,
);
process.exit(Object.keys(violations(report)).length === 0 ? 0 : 1);
