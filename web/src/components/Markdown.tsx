import { useMemo } from 'react';
import { Marked } from 'marked';
import DOMPurify from 'dompurify';

const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => escapes[c] ?? c);
}

/**
 * The journal's Markdown: GitHub's flavour, a line break where the writer
 * broke the line, and raw HTML in the source shown as the text it is
 * (never as markup).
 */
const markdown = new Marked({
  gfm: true,
  breaks: true,
  renderer: {
    html: ({ text }) => escapeHtml(text),
  },
});

/**
 * markdownHtml renders Markdown source as HTML that is safe to insert:
 * raw HTML is escaped by the renderer, and DOMPurify then removes whatever
 * markup could still run script (javascript: and data: links, event
 * handlers), in case a Markdown construct ever lets one through.
 */
export function markdownHtml(source: string): string {
  const html = markdown.parse(source, { async: false });
  return DOMPurify.sanitize(html, { USE_PROFILES: { html: true }, FORBID_TAGS: ['style', 'form', 'input', 'button'] });
}

/** MarkdownView shows Markdown source rendered (markdownHtml). */
export function MarkdownView({ source, label }: { source: string; label?: string }) {
  const html = useMemo(() => markdownHtml(source), [source]);
  return <div className="markdown" aria-label={label} dangerouslySetInnerHTML={{ __html: html }} />;
}
