import { AnswerStream } from './answer-stream';
import type { CliIo } from './io';
import { PLAIN } from './render/text';

/** Records everything written, as one transcript (lines end with \n). */
function transcriptIo(): CliIo & { text(): string } {
  let written = '';
  return {
    out: (t) => (written += `${t}\n`),
    err: (t) => (written += `ERR ${t}\n`),
    write: (t) => (written += t),
    status: () => undefined,
    interactive: false,
    style: PLAIN,
    ask: () => Promise.resolve(undefined),
    text: () => written,
  };
}

const GOAL = '0190f5a0-0000-7000-8000-000000000001';
const delta = (attempt: number, index: number, text: string) =>
  JSON.stringify({ schemaVersion: 1, goalId: GOAL, attempt, index, text, at: '2026-01-01T00:00:00.000Z' });

describe('AnswerStream', () => {
  it('writes the pieces as they come on one line, closed by end()', () => {
    const io = transcriptIo();
    const answer = new AnswerStream(io);
    answer.push(delta(1, 0, '余归 is '));
    expect(io.text()).toBe('Answer:\n余归 is ');
    expect(answer.writing).toBe(true);
    answer.push(delta(1, 1, 'a swordswoman.'));
    answer.end();
    answer.end();
    expect(answer.writing).toBe(false);
    expect(io.text()).toBe('Answer:\n余归 is a swordswoman.\n');
  });

  it('skips repeated pieces, older attempts and unreadable data; restarts on a new attempt', () => {
    const io = transcriptIo();
    const answer = new AnswerStream(io);
    answer.push('not json');
    answer.push(JSON.stringify({ text: 'no schema' }));
    answer.push(delta(1, 0, 'first '));
    answer.push(delta(1, 0, 'first '));
    answer.push(delta(2, 0, 'again '));
    answer.push(delta(1, 1, 'late'));
    answer.push(delta(2, 1, 'whole.'));
    answer.end();
    expect(io.text()).toBe('Answer:\nfirst \n(the answer is being written again)\nAnswer:\nagain whole.\n');
  });

  it('holds trace lines that arrive while the answer is written until it ends; a closing line ends it', () => {
    const io = transcriptIo();
    const answer = new AnswerStream(io);
    answer.print('[route] retrieve', false);
    answer.push(delta(1, 0, 'Half '));
    answer.print('[retrieve] late', false);
    answer.push(delta(1, 1, 'whole.'));
    answer.print('[answer] 1 citation(s)', true);
    answer.print('✔ completed', true);
    expect(io.text()).toBe(
      '[route] retrieve\nAnswer:\nHalf whole.\n[retrieve] late\n[answer] 1 citation(s)\n✔ completed\n',
    );
  });
});
