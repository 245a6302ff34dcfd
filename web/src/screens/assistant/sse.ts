// A small, pure reader of server-sent events (text/event-stream) as the
// HTML standard defines them, for streams read from a fetch Response body:
// EventSource cannot send a POST. No DOM, no timers: a chunk goes in, the
// events it completes come out.

export interface SseEvent {
  /** The `event:` field, or "message" when the event has none. */
  event: string;
  /** The `data:` lines joined by "\n". */
  data: string;
  /** The last `id:` field seen on the stream, or "". */
  id: string;
}

/**
 * SseParser turns text chunks, split anywhere (inside a line, between "\r"
 * and "\n", inside an event), into whole events. Lines end in "\n", "\r\n"
 * or "\r"; lines starting with ":" are comments; a blank line ends an event;
 * an event without data is dropped, as a browser does.
 */
export class SseParser {
  private buffer = '';
  private started = false;
  private eventType = '';
  private dataLines: string[] = [];
  private lastId = '';

  /** push takes the next chunk of text and returns the events it completed. */
  push(chunk: string): SseEvent[] {
    let text = this.buffer + chunk;
    if (!this.started && text.length > 0) {
      this.started = true;
      if (text.startsWith('\uFEFF')) text = text.slice(1);
    }
    const out: SseEvent[] = [];
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (c !== '\n' && c !== '\r') continue;
      // A "\r" at the end of the chunk may be the first half of "\r\n": wait for the next chunk.
      if (c === '\r' && i === text.length - 1) break;
      this.line(text.slice(start, i), out);
      if (c === '\r' && text[i + 1] === '\n') i++;
      start = i + 1;
    }
    this.buffer = text.slice(start);
    return out;
  }

  /**
   * end closes the stream: an unterminated last line counts, and a last
   * event the server did not close with a blank line is still delivered
   * (a proxy or a cut connection may drop the final line end).
   */
  end(): SseEvent[] {
    const out: SseEvent[] = [];
    const rest = this.buffer.endsWith('\r') ? this.buffer.slice(0, -1) : this.buffer;
    this.buffer = '';
    if (rest !== '') this.line(rest, out);
    this.dispatch(out);
    return out;
  }

  private line(line: string, out: SseEvent[]): void {
    if (line === '') {
      this.dispatch(out);
      return;
    }
    if (line.startsWith(':')) return; // a comment (keep-alive)
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'event':
        this.eventType = value;
        break;
      case 'data':
        this.dataLines.push(value);
        break;
      case 'id':
        if (!value.includes('\0')) this.lastId = value;
        break;
      default: // retry and unknown fields: nothing to do for a fetch reader
    }
  }

  private dispatch(out: SseEvent[]): void {
    if (this.dataLines.length > 0) {
      out.push({ event: this.eventType || 'message', data: this.dataLines.join('\n'), id: this.lastId });
    }
    this.eventType = '';
    this.dataLines = [];
  }
}

/**
 * readEvents yields the events of a response body as they arrive, decoding
 * UTF-8 across chunk boundaries. It ends when the body ends; an aborted
 * fetch makes it throw the abort error.
 */
export async function* readEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      yield* parser.push(decoder.decode(value, { stream: true }));
    }
    yield* parser.push(decoder.decode());
    yield* parser.end();
  } finally {
    // The consumer may stop early (a break): stop the download too.
    reader.cancel().catch(() => undefined);
  }
}
