import type { ServiceMsg } from '@nats-io/services';
import { ERROR_CODE_INFO, type ToolOutput, errorEnvelope } from '@novelrag/contracts';
import type { HostLogger } from './logger';
import { errorOutput } from './outputs';

/** Starts the message of the short error sent when the full output could not be. */
const REPLY_FAILED_NOTE = 'the full output could not be sent; ';

/**
 * Answers a tool request with `output`; when that cannot be sent (e.g. larger than the server's max payload), with a
 * short error instead. The tool may have run by then, so that error never says "retry" unless the output itself did.
 */
export function replyTo(msg: ServiceMsg, logger: HostLogger, output: ToolOutput): void {
  try {
    send(msg, logger, output);
    return;
  } catch (err) {
    logger.error('reply not sent; answering a short error instead', {
      type: output.type,
      error: String(err),
    });
  }
  const fallback =
    output.type === 'error'
      ? {
          ...errorEnvelope(output.error.code, REPLY_FAILED_NOTE + output.error.message.slice(0, 1_000)),
          retryable: output.error.retryable,
        }
      : errorEnvelope('TOOL_OUTPUT_TOO_LARGE', `${REPLY_FAILED_NOTE}${output.result.length} characters`);
  try {
    send(msg, logger, errorOutput(fallback, output.durationMs));
  } catch (err) {
    logger.error('no reply sent', { error: String(err) });
  }
}

/** A result as a plain reply; an error with the micro service's error headers too (its code and status). */
function send(msg: ServiceMsg, logger: HostLogger, output: ToolOutput): void {
  const body = JSON.stringify(output);
  if (output.type === 'result') {
    msg.respond(body);
    return;
  }
  const { code, message } = output.error;
  // Header values may not contain line breaks; the full message is in the body.
  const description = `${code}: ${message}`.replace(/[\r\n]+/g, ' ').slice(0, 256);
  try {
    msg.respondError(ERROR_CODE_INFO[code].httpStatus, description, body);
  } catch (err) {
    logger.warn('error headers refused; replying without them', { code, error: String(err) });
    msg.respond(body);
  }
}
