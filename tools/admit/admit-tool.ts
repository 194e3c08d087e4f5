import { createUser } from '@nats-io/nkeys';
import {
  MicroServiceNames,
  Subjects,
  TOOL_QUEUE_GROUP,
  parseToolOwners,
  toolResultsBucket,
} from '@novelrag/contracts';

/** What an operator needs to admit one third-party tool service (see docs/security.md). */
export interface Admission {
  /** The tool's secret: an nkey seed (`SU…`), shown once; the server keeps only the public key. */
  readonly seed: string;
  readonly publicKey: string;
  readonly serviceName: string;
  readonly inboxPrefix: string;
  readonly resultsBucket: string;
  /** The entry for `authorization.users` in deploy/nats/nats.conf. */
  readonly usersEntry: string;
  /** Subjects to add to the ORCHESTRATOR publish allow list (it reads the tool's claims while a call is pending). */
  readonly orchestratorAllow: readonly string[];
  /** `NOVELRAG_TOOL_OWNERS` for the orchestrator and the gateway, with this tool added. */
  readonly owners: string;
}

const SUFFIX = /^[A-Za-z0-9_-]{1,64}$/;

/** The JetStream API subjects of one KV bucket its owner uses: look it up, create it, read and write keys. */
export function bucketSubjects(bucket: string, write: boolean): string[] {
  const stream = `KV_${bucket}`;
  const read = [
    `$JS.API.STREAM.INFO.${stream}`,
    `$JS.API.STREAM.MSG.GET.${stream}`,
    `$JS.API.DIRECT.GET.${stream}`,
    `$JS.API.DIRECT.GET.${stream}.>`,
  ];
  return write ? [...read, `$JS.API.STREAM.CREATE.${stream}`, `$KV.${bucket}.>`] : read;
}

const quoted = (subjects: readonly string[]) => subjects.map((s) => `"${s}"`).join(', ');

/**
 * A new identity for the tool service `novelrag-tools-<suffix>` serving `tools`: an nkey pair and the permissions that
 * let it serve, announce and answer discovery for its own subjects only, and record results in its own bucket.
 * @throws Error for a bad suffix or tool name, a built-in name, or a name already admitted to another service.
 */
export function admitTool(suffix: string, tools: readonly string[], currentOwners = ''): Admission {
  if (!SUFFIX.test(suffix)) throw new Error(`service suffix "${suffix}" must be 1-64 of A-Z a-z 0-9 _ -`);
  if (tools.length === 0) throw new Error('name at least one tool (--tool <Name>)');
  const owners = `${currentOwners.trim() ? `${currentOwners.trim()};` : ''}${suffix}=${tools.join(',')}`;
  parseToolOwners(owners); // throws for a bad name, a built-in name or a name admitted twice
  const pair = createUser();
  const publicKey = pair.getPublicKey();
  const serviceName = MicroServiceNames.toolService(suffix);
  const resultsBucket = toolResultsBucket(serviceName);
  const inboxPrefix = `_INBOX_${suffix}`;
  const publish = [
    'novelrag.goals.*.runtime',
    'novelrag.goals.*.interact',
    Subjects.toolsChanged,
    '$JS.API.INFO',
    ...bucketSubjects(resultsBucket, true),
  ];
  const subscribe = [
    ...tools.map((t) => `${Subjects.toolInvoke(t)} ${TOOL_QUEUE_GROUP}`),
    '$SRV.PING',
    '$SRV.INFO',
    '$SRV.STATS',
    `$SRV.*.${serviceName}`,
    `$SRV.*.${serviceName}.>`,
    'novelrag.goals.*.cancel',
    `${inboxPrefix}.>`,
  ];
  const usersEntry = [
    `    # admit-tool: ${suffix} (${tools.join(', ')})`,
    `    { nkey: ${publicKey}, permissions: {`,
    `      publish: { allow: [${quoted(publish)}] }`,
    `      subscribe: { allow: [${quoted(subscribe)}] }`,
    `      allow_responses: { max: 16 }`,
    `    } }`,
  ].join('\n');
  return {
    seed: new TextDecoder().decode(pair.getSeed()),
    publicKey,
    serviceName,
    inboxPrefix,
    resultsBucket,
    usersEntry,
    orchestratorAllow: bucketSubjects(resultsBucket, false),
    owners,
  };
}

/** The text `npm run admit-tool` prints. */
export function admissionText(a: Admission): string {
  return [
    `# Admitting the tool service ${a.serviceName}`,
    '',
    '# 1. Credentials for the tool (secret: give them to the tool only; they are not stored anywhere):',
    `NATS_NKEY_SEED=${a.seed}`,
    `#    Connect with the nkey authenticator and inboxPrefix "${a.inboxPrefix}", serve the micro service`,
    `#    "${a.serviceName}"; the tool kit records results in the KV bucket "${a.resultsBucket}".`,
    '',
    '# 2. deploy/nats/nats.conf, inside authorization.users:',
    a.usersEntry,
    '',
    "# 3. deploy/nats/nats.conf, ORCHESTRATOR publish allow list (it reads the tool's claims during a call):",
    `        ${quoted(a.orchestratorAllow)},`,
    '',
    '# 4. Environment of the orchestrators and gateways (then reload nats-server and restart them):',
    `NOVELRAG_TOOL_OWNERS=${a.owners}`,
    '',
  ].join('\n');
}

/**
 * deploy/nats/nats.conf's text with the admission applied (steps 2 and 3 of `admissionText`): the users entry last in
 * `authorization.users`, the orchestrator's read subjects before its tool dispatch subject.
 */
export function admittedConfig(text: string, admission: Admission): string {
  const users = text.lastIndexOf('  ]\n}');
  const orchestrator = text.indexOf('"novelrag.tools.*.invoke",');
  const extra = `${admission.orchestratorAllow.map((s) => `"${s}"`).join(', ')},\n        `;
  const withUsers = `${text.slice(0, users)}${admission.usersEntry}\n${text.slice(users)}`;
  return `${withUsers.slice(0, orchestrator)}${extra}${withUsers.slice(orchestrator)}`;
}
