import { AnswerDelta } from '@novelrag/contracts';
import type { CliIo } from './io';

/**
 * Prints the answer of a `rag` or `assistant` goal as it is written, from the gateway's `answer.delta` events: the pieces of one
 * attempt in order (a repeated or late piece is skipped), and a notice when a resumed pursuit starts the answer anew.
 * The pieces share one line-in-progress: other lines printed meanwhile (`print`) wait until the answer's line is
 * closed (`end()`, or a line that closes it), so the answer is never cut by trace lines arriving on another path.
 */
export class AnswerStream {
  private attempt: number | undefined;
  private next = 0;
  private open = false;
  private held: string[] = [];

  constructor(private readonly io: CliIo) {}

  /** Whether a piece was written and its line is not closed yet (a progress line would overwrite it). */
  get writing(): boolean {
    return this.open;
  }

  /** Takes the data of one `answer.delta` event; unreadable data is ignored (never fatal). */
  push(data: string): void {
    let parsed: ReturnType<typeof AnswerDelta.safeParse>;
    try {
      parsed = AnswerDelta.safeParse(JSON.parse(data));
    } catch {
      return;
    }
    if (!parsed.success) return;
    const delta = parsed.data;
    if (this.attempt !== undefined && delta.attempt < this.attempt) return;
    if (delta.attempt !== this.attempt) {
      if (this.attempt !== undefined) {
        this.end();
        this.io.out(this.io.style.dim('(the answer is being written again)'));
      }
      this.attempt = delta.attempt;
      this.next = 0;
    }
    if (delta.index < this.next) return;
    if (!this.open) this.io.out(this.io.style.bold('Answer:'));
    this.next = delta.index + 1;
    this.open = true;
    this.io.write(delta.text);
  }

  /** Prints a line: at once when no answer is being written or when it `closes` the answer, else after the answer. */
  print(line: string, closes: boolean): void {
    if (closes) this.end();
    if (this.open) this.held.push(line);
    else this.io.out(line);
  }

  /** Closes the answer's line (if a piece was written since the last close), then prints the lines held meanwhile. */
  end(): void {
    if (this.open) {
      this.open = false;
      this.io.write('\n');
    }
    const held = this.held;
    this.held = [];
    for (const line of held) this.io.out(line);
  }
}
