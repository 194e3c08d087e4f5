import { readFileSync } from 'node:fs';
import { BaseEnv } from '@novelrag/bus';
import { describeIssues } from '@novelrag/contracts';
import { z } from 'zod';

/** The inbox prefix of the bridge's NATS requests (its NATS user may read only these replies). */
export const BRIDGE_INBOX_PREFIX = '_INBOX_mcp';

/** The bridge's environment (BaseEnv adds NATS, identity, logging). */
export const McpBridgeEnv = z.object({
  NOVELRAG_MCP_CONFIG: z
    .string()
    .min(1)
    .describe(
      'JSON file naming the MCP servers whose tools the MCP bridge hosts on the bus (see docs/mcp.md); `npm start` runs the bridge only when it is set.',
    ),
  NOVELRAG_MCP_RESTART_MAX_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(10 * 60_000)
    .default(30_000)
    .describe(
      'Longest wait before the MCP bridge restarts a server that died (the wait doubles from 500 ms up to this).',
    ),
});
export type McpBridgeEnv = z.infer<typeof McpBridgeEnv>;
export const BridgeEnv = BaseEnv.extend(McpBridgeEnv.shape);
export type BridgeEnv = z.infer<typeof BridgeEnv>;

const ServerName = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,32}$/, 'server names are 1-32 characters of A-Z a-z 0-9 _ -');
const StringMap = z.record(z.string().min(1).max(256), z.string().max(8_192));

/** One MCP server: a command run over stdio, or a streamable HTTP URL. */
export const McpServerConfig = z
  .strictObject({
    command: z.string().min(1).max(1_024).optional(),
    args: z.array(z.string().max(8_192)).max(256).default([]),
    /** Added to a small safe environment (PATH, HOME…), not the bridge's whole environment (no secrets leak). */
    env: StringMap.default({}),
    cwd: z.string().min(1).max(1_024).optional(),
    url: z.url({ protocol: /^https?$/ }).optional(),
    headers: StringMap.default({}),
    /** Bound on one tool call (the invocation's own deadline may be shorter). */
    timeoutMs: z
      .number()
      .int()
      .min(100)
      .max(60 * 60_000)
      .default(60_000),
    /** Tool name prefix (default: the server's name); tools are `<prefix>_<tool>`. */
    prefix: ServerName.optional(),
  })
  .refine((s) => (s.command === undefined) !== (s.url === undefined), {
    message: 'give exactly one of `command` (stdio) and `url` (streamable HTTP)',
  });
export type McpServerConfig = z.infer<typeof McpServerConfig>;

export const BridgeConfig = z.strictObject({
  servers: z.record(ServerName, McpServerConfig).refine((s) => Object.keys(s).length > 0, {
    message: 'name at least one server',
  }),
});
export type BridgeConfig = z.infer<typeof BridgeConfig>;

/** Reads and validates the config file; the error names the file and every bad field. */
export function loadBridgeConfig(file: string): BridgeConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(
      `cannot read the MCP bridge config ${file}: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  const parsed = BridgeConfig.safeParse(raw);
  if (!parsed.success) throw new Error(`invalid MCP bridge config ${file}: ${describeIssues(parsed.error)}`);
  return parsed.data;
}
