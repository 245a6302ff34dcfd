import { describe, expect, it } from 'vitest';
import { readEvents, SseParser, type SseEvent } from './sse';

/** parseChunks feeds chunks one by one and collects every event, the end included. */
function parseChunks(chunks: string[]): SseEvent[] {
  const p = new SseParser();
  return [...chunks.flatMap((c) => p.push(c)), ...p.end()];
}

/** everySplit feeds text cut at every position into two chunks. */
function everySplit(text: string): SseEvent[][] {
  const out: SseEvent[][] = [];
  for (let i = 0; i <= text.length; i++) out.push(parseChunks([text.slice(0, i), text.slice(i)]));
  return out;
}

const stream =
  'event: start\ndata: {"conversationId":"c1","turnId":"t1"}\n\n' + 'event: delta\ndata: {"content":"Mon"}\n\n' + 'event: done\ndata: {"status":"complete"}\n\n';
const expected: SseEvent[] = [
  { event: 'start', data: '{"conversationId":"c1","turnId":"t1"}', id: '' },
  { event: 'delta', data: '{"content":"Mon"}', id: '' },
  { event: 'done', data: '{"status":"complete"}', id: '' },
];

describe('SseParser', () => {
  it('reads named events with JSON data', () => {
    expect(parseChunks([stream])).toEqual(expected);
  });

  it('gives the same events wherever a chunk boundary falls (inside lines, between events)', () => {
    for (const events of everySplit(stream)) expect(events).toEqual(expected);
    expect(parseChunks(stream.split(''))).toEqual(expected);
  });

  it('only returns an event once its blank line has arrived', () => {
    const p = new SseParser();
    expect(p.push('event: delta\ndata: {"content":"a"}\n')).toEqual([]);
    expect(p.push('\n')).toEqual([{ event: 'delta', data: '{"content":"a"}', id: '' }]);
  });

  it('accepts CRLF and lone CR line ends, also with "\\r" and "\\n" in different chunks', () => {
    const crlf = stream.replaceAll('\n', '\r\n');
    for (const events of everySplit(crlf)) expect(events).toEqual(expected);
    expect(parseChunks([stream.replaceAll('\n', '\r')])).toEqual(expected);
    // "\r" then "\n" in the next chunk is one line end, not a blank line that would end the event early.
    expect(parseChunks(['event: delta\r', '\ndata: x\r', '\n\r', '\n'])).toEqual([{ event: 'delta', data: 'x', id: '' }]);
  });

  it('skips comments and unknown fields', () => {
    expect(parseChunks([': keep-alive\n\n:another\nevent: delta\nretry: 10\nfoo: bar\ndata: x\n\n'])).toEqual([{ event: 'delta', data: 'x', id: '' }]);
  });

  it('joins multi-line data with "\\n" and strips one leading space only', () => {
    expect(parseChunks(['data: line one\ndata:  two\ndata\ndata:three\n\n'])).toEqual([{ event: 'message', data: 'line one\n two\n\nthree', id: '' }]);
  });

  it('drops an event without data and resets the event name after each event', () => {
    expect(parseChunks(['event: start\n\ndata: x\n\n'])).toEqual([{ event: 'message', data: 'x', id: '' }]);
  });

  it('keeps the last id for later events', () => {
    expect(parseChunks(['id: 7\ndata: a\n\ndata: b\n\n']).map((e) => e.id)).toEqual(['7', '7']);
  });

  it('delivers a final event that has no trailing blank line, or no line end at all', () => {
    expect(parseChunks(['event: done\ndata: {"ok":true}\n'])).toEqual([{ event: 'done', data: '{"ok":true}', id: '' }]);
    expect(parseChunks(['event: done\ndata: {"ok":true}'])).toEqual([{ event: 'done', data: '{"ok":true}', id: '' }]);
    expect(parseChunks(['event: done\r\ndata: {"ok":true}\r'])).toEqual([{ event: 'done', data: '{"ok":true}', id: '' }]);
  });

  it('ignores a byte order mark at the start of the stream', () => {
    expect(parseChunks(['\uFEFF', 'data: x\n\n'])).toEqual([{ event: 'message', data: 'x', id: '' }]);
  });
});

describe('readEvents', () => {
  it('decodes UTF-8 split inside a character across body chunks', async () => {
    const bytes = new TextEncoder().encode('event: delta\ndata: {"content":"€ ✓"}\n\nevent: done\ndata: {}');
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        // One byte per chunk: every multi-byte character is split.
        for (const b of bytes) c.enqueue(new Uint8Array([b]));
        c.close();
      },
    });
    const events: SseEvent[] = [];
    for await (const e of readEvents(body)) events.push(e);
    expect(events).toEqual([
      { event: 'delta', data: '{"content":"€ ✓"}', id: '' },
      { event: 'done', data: '{}', id: '' },
    ]);
  });
});
