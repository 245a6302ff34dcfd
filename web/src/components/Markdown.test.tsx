import { afterEach, describe, expect, it, vi } from 'vitest';
import { render } from '@testing-library/react';
import { markdownHtml, MarkdownView } from './Markdown';

afterEach(() => {
  vi.unstubAllGlobals();
  delete (window as { pwned?: boolean }).pwned;
});

describe('markdownHtml', () => {
  it('renders Markdown', () => {
    const html = markdownHtml('# Plan\n\n- **only** A+ setups\n- [rules](https://example.com/rules)\nline\nbreak');
    expect(html).toContain('<h1>Plan</h1>');
    expect(html).toContain('<strong>only</strong>');
    expect(html).toContain('<a href="https://example.com/rules">rules</a>');
    expect(html).toContain('line<br>break');
  });

  it('shows raw HTML as text and never lets script run', () => {
    const attacks = [
      '<script>window.pwned = true</script>',
      '<img src=x onerror="window.pwned = true">',
      'text <b onclick="window.pwned = true">bold</b>',
      '[click](javascript:window.pwned=true)',
      '[click](JAVASCRIPT:window.pwned=true)',
      '![x](javascript:window.pwned=true)',
      '<iframe src="javascript:window.pwned=true"></iframe>',
      '<svg onload="window.pwned = true"></svg>',
      '[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
      '<a href="javascript:window.pwned=true">a</a>',
    ];
    for (const source of attacks) {
      const html = markdownHtml(source);
      const { container, unmount } = render(<MarkdownView source={source} />);
      // No element that runs script, no handler attribute, no script URL.
      expect(container.querySelector('script, iframe, svg, object, embed')).toBeNull();
      for (const el of container.querySelectorAll('*')) {
        for (const attr of el.attributes) {
          expect(attr.name.startsWith('on'), `${source}: ${attr.name}`).toBe(false);
          expect(/^\s*(javascript|data|vbscript):/i.test(attr.value), `${source}: ${attr.value}`).toBe(false);
        }
      }
      for (const a of container.querySelectorAll('a')) a.click();
      for (const img of container.querySelectorAll('img')) img.dispatchEvent(new Event('error'));
      expect((window as { pwned?: boolean }).pwned, source).toBeUndefined();
      // Inside a tag: the same text escaped is harmless.
      expect(html).not.toMatch(/<(script|iframe|svg)|<[^>]*\son\w+=|<[^>]*(href|src)="\s*(javascript|data):/i);
      unmount();
    }
    // The raw HTML is there as the text the writer typed.
    const { container } = render(<MarkdownView source={'<script>window.pwned = true</script>'} />);
    expect(container.textContent).toContain('<script>window.pwned = true</script>');
  });
});
