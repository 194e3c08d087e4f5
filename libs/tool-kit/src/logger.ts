/** The logging the host needs (JsonLogger's child fits; third parties can pass `console`-like adapters). */
export interface HostLogger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export const silentLogger: HostLogger = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};
