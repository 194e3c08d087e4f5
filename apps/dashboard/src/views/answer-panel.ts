// The answer of a `rag` or `assistant` goal as it is written: the live pieces (`answer.delta` events, not part of the
// stored trace) appended in order, then the final answer: the `rag.answer` trace event with its citations marked
// verified or not, or the `assistant.output` event with its suggested next inputs.
import type { AnswerDelta, TraceEventOf } from '@novelrag/contracts';
import { badge, clear, h } from '../dom';

export class AnswerPanel {
  readonly el = h('div', { class: 'answer-panel', 'data-testid': 'answer' });
  private attempt = 0;
  private next = 0;
  private final = false;
  private readonly text = h('p', { class: 'answer-text', 'data-testid': 'answer-text' });

  /** The next piece of the answer being written; a newer attempt (a resumed pursuit) starts the answer again. */
  delta(d: AnswerDelta): void {
    if (this.final || d.attempt < this.attempt) return;
    if (d.attempt > this.attempt) {
      this.attempt = d.attempt;
      this.next = 0;
      this.text.textContent = '';
      clear(this.el, h('h3', {}, 'Answer ', badge('streaming', 'pending')), this.text);
    }
    if (d.index !== this.next) return; // a piece missed while connecting: the final answer will show it all
    this.next++;
    this.el.dataset['pieces'] = String(this.next); // how many pieces arrived live (kept once the answer is final)
    this.text.textContent += d.text;
  }

  /** The answer as kept, with each citation's document and quote, marked verified (✓) or not (✗ and why). */
  answer(e: TraceEventOf<'rag.answer'>): void {
    this.final = true;
    this.text.textContent = e.answer;
    const citations = e.citations.map((c) =>
      h(
        'li',
        {
          class: c.verified ? 'citation verified' : 'citation unverified',
          'data-verified': String(c.verified),
        },
        c.verified ? badge('verified', 'ok') : badge(`unverified: ${c.problem ?? 'not found'}`, 'failed'),
        ' ',
        h('span', { class: 'mono' }, c.uri ?? c.docId),
        ` "${c.quote}"`,
      ),
    );
    clear(
      this.el,
      h('h3', {}, 'Answer ', e.limited ? badge('limited', 'pending') : null),
      this.text,
      citations.length
        ? h('ol', { class: 'citations', 'data-testid': 'citations' }, citations)
        : h('div', { class: 'muted' }, 'No citations'),
      h(
        'div',
        { class: 'muted' },
        `citation policy ${e.policy} · ${e.toolCalls} tool call(s) · path ${e.path}`,
      ),
    );
  }

  /** The assistant's answer as kept, with the suggested next inputs. */
  assistantAnswer(e: TraceEventOf<'assistant.output'>): void {
    this.final = true;
    this.text.textContent = e.content;
    clear(
      this.el,
      h('h3', {}, 'Answer ', e.forced ? badge('forced', 'pending') : null),
      this.text,
      e.suggestions.length
        ? h('ul', { class: 'suggestions' }, ...e.suggestions.map((s) => h('li', {}, s)))
        : null,
    );
  }
}
