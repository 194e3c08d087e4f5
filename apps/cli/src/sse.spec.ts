import { SseParser } from './sse';

describe('SseParser', () => {
  it('parses ids, event names and data, ignoring comments and retry', () => {
    const p = new SseParser();
    const out = p.feed(
      'retry: 2000\n\n: ping\n\nid: 7\nevent: decision\ndata: {"a":1}\n\nevent: end\ndata: {}\n\n',
    );
    expect(out).toEqual([
      { id: '7', event: 'decision', data: '{"a":1}' },
      { id: '7', event: 'end', data: '{}' },
    ]);
  });

  it('joins multi-line data and survives chunks split anywhere, CRLF included', () => {
    const text = 'id: 1\r\nevent: x\r\ndata: line1\r\ndata: 余归\r\n\r\nid: 2\ndata:no-space\n\n';
    for (let cut = 0; cut <= text.length; cut++) {
      const p = new SseParser();
      const out = [...p.feed(text.slice(0, cut)), ...p.feed(text.slice(cut))];
      expect(out).toEqual([
        { id: '1', event: 'x', data: 'line1\n余归' },
        { id: '2', event: 'message', data: 'no-space' },
      ]);
    }
  });

  it('does not dispatch a block without data or event', () => {
    expect(new SseParser().feed('id: 3\n\n')).toEqual([]);
  });
});
