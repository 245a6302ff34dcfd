// Numbers as people type them. The API takes decimals as plain strings
// ("25000.5"); a person types "25,000.50", "25 000,50" or "25.000,50"
// depending on where they live. normalizeDecimal reads what was typed with
// the browser's number format and writes the API's form; formatExample shows
// a number the way the person would type it.

interface Separators {
  decimal: string;
  group: string;
}

const separatorCache = new Map<string, Separators>();

/** separators are the decimal and grouping characters of a locale (undefined: the browser's). */
export function separators(locale?: string): Separators {
  const key = locale ?? '';
  let s = separatorCache.get(key);
  if (!s) {
    s = { decimal: '.', group: ',' };
    try {
      for (const part of new Intl.NumberFormat(locale).formatToParts(12345.6)) {
        if (part.type === 'decimal') s.decimal = part.value;
        if (part.type === 'group') s.group = part.value;
      }
    } catch {
      /* an unknown locale: the API's own form */
    }
    separatorCache.set(key, s);
  }
  return s;
}

/** Spaces of every width and apostrophes only ever group digits (1 000, 1'000, 1’000). */
const spacing = /[\s\u00a0\u202f\u2009'’]/g;
const plain = /^-?\d+(\.\d+)?$/;

/**
 * normalizeDecimal turns a typed number into the API's decimal string:
 * "25,000" → "25000", "25 000" → "25000", "1.234,56" → "1234.56". With
 * one kind of separator, the locale decides: a run of three-digit groups
 * after the locale's grouping mark is grouping, anything else is a decimal
 * point ("1,5" is 1.5 everywhere). A plain decimal ("25.000", "190.125")
 * is the API's own form, which edit forms are filled with: it is read as
 * written in every locale. Text that is not a number comes back
 * trimmed, unchanged, for the server to refuse with its message.
 */
export function normalizeDecimal(text: string, locale?: string): string {
  const trimmed = text.trim();
  let s = trimmed.replace(spacing, '').replace(/^\+/, '').replace(/^[−–]/, '-');
  if (s === '' || plain.test(s)) return s;
  const negative = s.startsWith('-');
  if (negative) s = s.slice(1);
  const lastDot = s.lastIndexOf('.');
  const lastComma = s.lastIndexOf(',');
  let whole: string;
  let fraction = '';
  if (lastDot >= 0 && lastComma >= 0) {
    // Both marks: the last one is the decimal point, the other groups.
    const point = Math.max(lastDot, lastComma);
    const group = point === lastDot ? ',' : '.';
    whole = s.slice(0, point);
    fraction = s.slice(point + 1);
    if (!groupedCorrectly(whole, group)) return trimmed;
    whole = whole.split(group).join('');
  } else {
    const mark = lastDot >= 0 ? '.' : ',';
    const { decimal, group } = separators(locale);
    // French and others group with a space: the mark that is not their decimal point groups.
    const groupMark = group === '.' || group === ',' ? group : decimal === ',' ? '.' : ',';
    const parts = s.split(mark);
    if (mark === groupMark && parts.length >= 2 && groupedCorrectly(s, mark)) {
      whole = parts.join('');
    } else if (parts.length === 2) {
      whole = parts[0] ?? '';
      fraction = parts[1] ?? '';
    } else if (groupedCorrectly(s, mark)) {
      // "1.234.567" where the locale groups with a comma: still grouping.
      whole = parts.join('');
    } else {
      return trimmed;
    }
  }
  if (whole === '') whole = '0';
  const out = `${negative ? '-' : ''}${whole}${fraction === '' ? '' : `.${fraction}`}`;
  return plain.test(out) ? out : trimmed;
}

/** groupedCorrectly: 1 to 3 digits, then groups of exactly three, split by mark. */
function groupedCorrectly(s: string, mark: string): boolean {
  const parts = s.split(mark);
  return parts.length >= 2 && /^\d{1,3}$/.test(parts[0] ?? '') && parts.slice(1).every((p) => /^\d{3}$/.test(p));
}

/** formatExample writes a plain decimal ("1234.56") as the person would type it ("1,234.56", "1.234,56"). */
export function formatExample(value: string, locale?: string): string {
  if (!plain.test(value)) return value;
  const places = value.includes('.') ? (value.split('.')[1]?.length ?? 0) : 0;
  try {
    return new Intl.NumberFormat(locale, { minimumFractionDigits: places, maximumFractionDigits: places }).format(
      value as Intl.StringNumericLiteral,
    );
  } catch {
    return value;
  }
}
