// WCAG 2.x contrast of every visible text on a page, as Chromium renders
// it: each text node's colour against the background it is painted on (the
// element's and its ancestors' background colours, composited). Normal text
// needs 4.5:1, large text (24 px, or 18.66 px bold) 3:1. Disabled controls
// are exempt, as WCAG exempts inactive components.

/**
 * contrastProblems returns one line per text below its threshold on the
 * current page: `"text" 3.10:1 < 4.5 (rgb(…) on rgb(…))`.
 */
export async function contrastProblems(page) {
  return page.evaluate(() => {
    const canvas = document.createElement('canvas');
    canvas.width = canvas.height = 1;
    const ctx = canvas.getContext('2d', { willReadFrequently: true });
    /** rgba reads any CSS colour Chromium computes (rgb(), color(srgb …), …) as 0-255 channels and alpha. */
    const rgba = (css) => {
      ctx.clearRect(0, 0, 1, 1);
      ctx.fillStyle = '#000';
      ctx.fillStyle = css;
      ctx.fillRect(0, 0, 1, 1);
      const [r, g, b, a] = ctx.getImageData(0, 0, 1, 1).data;
      // getImageData un-premultiplies; a fully transparent colour reads as 0,0,0,0.
      return [r, g, b, a / 255];
    };
    const over = (top, bottom) => {
      const a = top[3] + bottom[3] * (1 - top[3]);
      if (a === 0) return [0, 0, 0, 0];
      return [0, 1, 2].map((i) => (top[i] * top[3] + bottom[i] * bottom[3] * (1 - top[3])) / a).concat(a);
    };
    const luminance = ([r, g, b]) => {
      const f = (c) => {
        c /= 255;
        return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    const ratio = (a, b) => {
      const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
      return (x + 0.05) / (y + 0.05);
    };
    /** background is the opaque colour behind el: its and its ancestors' background colours, composited. */
    const background = (el) => {
      const layers = [];
      for (let n = el; n; n = n.parentElement) {
        const c = rgba(getComputedStyle(n).backgroundColor);
        if (c[3] > 0) layers.push(c);
        if (c[3] >= 1) break;
      }
      let out = rgba(getComputedStyle(document.documentElement).backgroundColor);
      if (out[3] < 1) out = over(out, [255, 255, 255, 1]);
      for (const layer of layers.reverse()) out = over(layer, out);
      return out;
    };
    const problems = [];
    const seen = new Set();
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent.trim();
      const el = node.parentElement;
      // Text hidden from assistive tech (aria-hidden) is still seen: it is checked too.
      if (!text || !el || el.closest('script, style, option, noscript')) continue;
      if (el.closest(':disabled, [aria-disabled="true"]')) continue;
      if (!el.checkVisibility({ checkOpacity: true, visibilityProperty: true })) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      const rect = range.getBoundingClientRect();
      if (rect.width < 2 || rect.height < 2) continue; // visually hidden (sr-only)
      const style = getComputedStyle(el);
      const bg = background(el);
      // Translucent ancestors (a result dimmed while it refreshes) fade the text into its background.
      let opacity = 1;
      for (let n = el; n; n = n.parentElement) opacity *= Number(getComputedStyle(n).opacity);
      const solid = over(rgba(style.color), bg);
      const fg = over([solid[0], solid[1], solid[2], opacity], bg);
      const size = parseFloat(style.fontSize);
      const bold = Number(style.fontWeight) >= 700;
      const large = size >= 24 || (size >= 18.66 && bold);
      const need = large ? 3 : 4.5;
      const r = ratio(fg, bg);
      if (r + 0.005 < need) {
        const line = `"${text.slice(0, 40)}" ${r.toFixed(2)}:1 < ${need} (${style.color} on rgb(${bg.slice(0, 3).map(Math.round).join(', ')}))`;
        if (!seen.has(line)) problems.push(line);
        seen.add(line);
      }
    }
    return problems;
  });
}
