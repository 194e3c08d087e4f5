#!/usr/bin/env node
// `npm run demo`: the seeds' example goal against the RUNNING system (`npm start` in another terminal).
// Submits "Create a protagonist named 余归 and link her to the Azure Sect" (--lang zh: the Chinese variant), follows
// the pursuit live phase by phase with a progress line, answers the confirmation (asks on a terminal; --yes / --no
// answer for you), then prints the outcome and the created resource. Says on screen whether the model is real or the
// scripted offline scenario (from data/run/launcher.json, written by `npm start`).
// --ask "<question>": then asks the repository that question (the `rag` agent kind, as `novelrag ask` does): the answer
// is printed as it is streamed, then its citations, each verified against the document it quotes. When 余归 already
// exists (an earlier demo run), the goal is skipped and only the question is asked.
//
//   npm run demo [-- --lang zh] [--yes|--no] [--ask QUESTION] [--verbose] [--url http://127.0.0.1:8080]
//     [--api-key KEY] [--wait ms]
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { bin, ensureEnv, root } from './ensure-env.mjs';

await ensureEnv(import.meta.url);

const REQUESTS = {
  en: 'Create a protagonist named 余归 and link her to the Azure Sect',
  zh: '创建一个名叫余归的主角，并把她与青云宗关联起来',
};

let values;
try {
  ({ values } = parseArgs({
    options: {
      lang: { type: 'string', default: 'en' },
      yes: { type: 'boolean', short: 'y' },
      no: { type: 'boolean' },
      ask: { type: 'string' },
      verbose: { type: 'boolean', short: 'v' },
      url: { type: 'string' },
      'api-key': { type: 'string' },
      wait: { type: 'string', default: '600000' },
      help: { type: 'boolean', short: 'h' },
    },
  }));
} catch (err) {
  console.error(`demo: ${err.message}`);
  process.exit(2);
}
if (values.help) {
  console.log(
    'usage: npm run demo [-- --lang en|zh] [--yes|--no] [--ask QUESTION] [--verbose] [--url URL] [--api-key KEY]',
  );
  process.exit(0);
}
const request = REQUESTS[values.lang];
if (!request) {
  console.error(`demo: --lang must be one of ${Object.keys(REQUESTS).join(', ')}`);
  process.exit(2);
}
const question = values.ask?.trim();
if (values.ask !== undefined && (!question || question.length > 2_000)) {
  console.error('demo: --ask needs a question of 1..2000 characters');
  process.exit(2);
}
if (values.yes && values.no) {
  console.error('demo: --yes and --no exclude each other');
  process.exit(2);
}
const waitMs = Number(values.wait);
if (!Number.isInteger(waitMs) || waitMs < 1000) {
  console.error('demo: --wait must be an integer number of milliseconds >= 1000');
  process.exit(2);
}

// The CLI is the client: build it (incremental, seconds) and use its functions.
const build = spawnSync(bin('tsc'), ['-b', 'apps/cli/tsconfig.app.json'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);
const require = createRequire(import.meta.url);
const cli = require(path.join(root, 'apps/cli/dist/index.js'));
const { SearchReply, FindReply } = require(path.join(root, 'libs/contracts/dist/index.js'));

const dataDir = path.resolve(root, process.env.NOVELRAG_DATA_DIR ?? 'data');
const launcherFile = path.join(dataDir, 'run', 'launcher.json');
const launcher = existsSync(launcherFile) ? JSON.parse(readFileSync(launcherFile, 'utf8')) : undefined;
const url = values.url ?? process.env.NOVELRAG_URL ?? launcher?.gatewayUrl ?? 'http://127.0.0.1:8080';
const apiKey = values['api-key'] ?? process.env.NOVELRAG_API_KEY;
const io = cli.processIo();
const s = io.style;
const client = new cli.GatewayClient({ url, apiKey, timeoutMs: 15_000 });

const scripted = launcher?.model?.mode === 'scripted';

/** Whether the gateway answers; explains how to start the system when not. */
async function systemReady() {
  try {
    const res = await fetch(`${url}/health/ready`, { signal: AbortSignal.timeout(5_000) });
    if (!res.ok) throw new Error(`health/ready answered ${res.status}`);
    return true;
  } catch (err) {
    io.err(`${s.red('The system is not running')} at ${url} (${err.cause?.message ?? err.message}).`);
    io.err(
      'Start it in another terminal with `npm start`, wait for "NovelRAG is running", then run `npm run demo`.',
    );
    return false;
  }
}

/** Says whether the model is real or the scripted recording. */
function showModel() {
  if (scripted) {
    io.out(
      s.yellow(
        `MODEL: SCRIPTED — replaying the recorded scenario "${launcher.model.scenario}" (no OPENAI_API_KEY/OPENAI_BASE_URL set).`,
      ),
    );
    io.out(
      s.yellow(
        '       Every model answer below is a recording, not a live model. Set OPENAI_API_KEY for the real thing.',
      ),
    );
  } else if (launcher?.model?.mode === 'openai') {
    io.out(s.green(`MODEL: real, OpenAI-compatible at ${launcher.model.baseUrl}`));
  } else {
    io.out(s.dim('MODEL: unknown (the system was not started with `npm start` from this folder)'));
  }
}

/** The URI of 余归 in the repository, if it is there. */
async function findYugui() {
  const hits = await client.request('/v1/resources/search', SearchReply, {
    method: 'POST',
    body: { query: '余归', limit: 1 },
  });
  return hits.hits[0]?.uri;
}

/** Pursues the example goal, then shows the resource it wrote. Returns the goal as stored at its end. */
async function runGoal() {
  io.out(`\nRequest (${values.lang}): ${s.bold(request)}\n`);
  const accepted = await client.request('/v1/goals', cli.GoalAccepted, {
    method: 'POST',
    body: { request, lang: values.lang },
  });
  io.out(s.dim(`goal ${accepted.goalId} accepted (${accepted.status}); following its trace…`));

  let step = -1;
  const goal = await cli.followGoal(client, accepted.goalId, {
    io,
    json: false,
    verbose: Boolean(values.verbose),
    answers: values.yes ? 'approve' : values.no ? 'decline' : 'ask',
    waitMs,
    onEvent: (event) => {
      if (event.step !== undefined && event.step !== step && cli.phaseOf(event)) {
        step = event.step;
        io.out(s.bold(`\n── step ${step + 1} ${'─'.repeat(50)}`));
      }
    },
  });

  io.out(
    `\n${s.bold('Outcome:')} ${goal.status}${goal.outcome?.resolutionStatus ? ` (${goal.outcome.resolutionStatus})` : ''}`,
  );
  const uri = await findYugui();
  if (uri) {
    const found = await client.request('/v1/resources', FindReply, { query: { uri } });
    io.out(`\n${s.bold('The resource:')}\n${cli.renderFind(found)}`);
  } else {
    io.out(s.dim('\n(no resource named 余归 in the repository)'));
  }
  return goal;
}

/**
 * Asks the repository the question (agent kind `rag`): prints the answer as it is streamed (the CLI's follow), its
 * citations, and how many pieces arrived. Returns the goal as stored at its end.
 */
async function askQuestion() {
  io.out(s.bold(`\n── question ${'─'.repeat(47)}`));
  io.out(`Question (${values.lang}): ${s.bold(question)}`);
  if (scripted)
    io.out(
      s.yellow(
        'MODEL: SCRIPTED — the search, the grading and the answer are recorded replies about 余归 (any question gets\n' +
          '       them); the citations are still verified for real against the documents the goal wrote.',
      ),
    );
  let pieces = 0;
  const counting = {
    ...io,
    write: (text) => {
      if (text !== '\n') pieces += 1; // the answer's closing line break is written too
      io.write(text);
    },
  };
  const accepted = await client.request('/v1/goals', cli.GoalAccepted, {
    method: 'POST',
    body: { agent: 'rag', request: question, lang: values.lang },
  });
  io.out(s.dim(`goal ${accepted.goalId} accepted (${accepted.status}); following its trace…`));
  const goal = await cli.followGoal(client, accepted.goalId, {
    io: counting,
    json: false,
    verbose: Boolean(values.verbose),
    answers: 'decline',
    waitMs,
  });
  if (pieces > 0) io.out(s.dim(`(the answer arrived in ${pieces} streamed piece(s))`));
  else if (goal.outcome?.response)
    io.out(
      `${s.bold('Answer')} ${s.dim('(from the outcome: no streamed piece reached us)')}:\n${goal.outcome.response}`,
    );
  const citations = goal.outcome?.citations ?? [];
  const verified = citations.filter((c) => c.verified).length;
  io.out(
    `\n${s.bold('Citations:')} ${verified} of ${citations.length} verified against the documents they quote`,
  );
  if (scripted && verified < citations.length)
    io.out(
      s.yellow(
        'The recording quotes what the demo goal writes in this language (--lang); a repository the other language\n' +
          'wrote does not hold those quotes, so they are unverified (and stripped): the check is real.',
      ),
    );
  return goal;
}

async function main() {
  if (!(await systemReady())) return 3;
  io.out(s.bold('NovelRAG demo') + s.dim(`  (gateway ${url})`));
  showModel();
  const existing = scripted ? await findYugui() : undefined;
  let goal;
  if (question && existing === '/character/yugui') {
    io.out(
      s.dim('\n余归 is already in the repository (an earlier demo run): skipping the goal, asking at once.'),
    );
  } else {
    if (existing === '/character/yugui')
      io.out(
        s.yellow(
          '余归 already exists here: the recording expects a fresh repository, so this run will stop as incomplete.\n' +
            'Undo the previous run (npx novelrag undo, until "No actions to undo") or start with a new NOVELRAG_DATA_DIR.\n',
        ),
      );
    goal = await runGoal();
    if (goal.status !== 'completed') return 1;
  }
  const more = [
    goal ? `npx novelrag show ${goal.goalId}` : undefined,
    'npx novelrag undo',
    'npx novelrag get /',
  ];
  if (question) {
    const asked = await askQuestion();
    io.out(s.dim(`\nMore: npx novelrag show ${asked.goalId} · npx novelrag ask "…" --lang ${values.lang}`));
    return asked.status === 'completed' ? 0 : 1;
  }
  io.out(s.dim(`\nMore: ${more.filter(Boolean).join(' · ')}`));
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    io.err(`${s.red(`error [${err.code ?? 'INTERNAL'}]`)}: ${err.message}`);
    process.exit(err.exitCode ?? 1);
  },
);
