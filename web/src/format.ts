// Display formatting. Money stays a decimal string from the API; these
// functions only format it (Intl.NumberFormat parses strings exactly), they
// never do arithmetic on it.

interface CurrencyFormatter {
  format: Intl.NumberFormat;
  /** false for a code Intl does not know: the code is appended instead of a symbol. */
  known: boolean;
}

const currencyFormatters = new Map<string, CurrencyFormatter>();

function currencyFormatter(currency: string): CurrencyFormatter {
  let f = currencyFormatters.get(currency);
  if (!f) {
    try {
      f = { format: new Intl.NumberFormat(undefined, { style: 'currency', currency, currencyDisplay: 'narrowSymbol' }), known: true };
    } catch {
      f = { format: new Intl.NumberFormat(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 }), known: false };
    }
    currencyFormatters.set(currency, f);
  }
  return f;
}

/** minorUnits is the number of fraction digits of a currency (JPY 0, USD 2, KWD 3). */
export function minorUnits(currency: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

const decimalPattern = /^-?\d+(\.\d+)?$/;

/** isDecimal reports whether value is a plain decimal string as the API writes them. */
function isDecimal(value: string): boolean {
  return decimalPattern.test(value);
}

/** formatMoney formats a decimal string in a currency with its minor units; "—" for null. */
export function formatMoney(value: string | null | undefined, currency: string | null | undefined): string {
  if (value == null || value === '' || !isDecimal(value)) return '—';
  if (!currency) return formatDecimal(value, 2);
  const f = currencyFormatter(currency);
  const text = f.format.format(value as Intl.StringNumericLiteral);
  return f.known ? text : `${text} ${currency}`;
}

const amountFormatters = new Map<string, Intl.NumberFormat>();

/**
 * formatAmount writes a signed amount with its currency's code after it, in the user's number format: "+100,000 JPY",
 * "+662.25 USD", "-12.50 EUR" (a P&L shown in two currencies side by side, where a symbol would not tell ¥ from ¥).
 * A currency Intl knows keeps its minor units; any other code (a crypto asset, USDT) up to 8 places. "—" for null.
 */
export function formatAmount(value: string | null | undefined, currency: string): string {
  if (value == null || value === '' || !isDecimal(value)) return '—';
  const known = currencyFormatter(currency).known;
  const key = known ? currency : '';
  let f = amountFormatters.get(key);
  if (!f) {
    const digits = known ? minorUnits(currency) : 2;
    f = new Intl.NumberFormat(undefined, { minimumFractionDigits: digits, maximumFractionDigits: known ? digits : 8, signDisplay: 'exceptZero' });
    amountFormatters.set(key, f);
  }
  return `${f.format(value as Intl.StringNumericLiteral)} ${currency}`;
}

const compactFormatters = new Map<string, Intl.NumberFormat>();

/** formatMoneyShort is an amount in at most a few characters ("$1.2K", "-$350"), for a phone's calendar cell; formatMoney in full elsewhere. */
export function formatMoneyShort(value: string | null | undefined, currency: string | null | undefined): string {
  if (value == null || value === '' || !isDecimal(value) || !currency) return formatMoney(value, currency);
  let f = compactFormatters.get(currency);
  if (!f) {
    try {
      f = new Intl.NumberFormat(undefined, { style: 'currency', currency, notation: 'compact', minimumFractionDigits: 0, maximumFractionDigits: 1 });
    } catch {
      return formatMoney(value, currency); // a code Intl does not know
    }
    compactFormatters.set(currency, f);
  }
  return f.format(value as Intl.StringNumericLiteral);
}

const decimalFormatters = new Map<string, Intl.NumberFormat>();

/** formatDecimal shows a decimal string with a fixed number of places (prices, ratios, R). */
export function formatDecimal(value: string | null | undefined, places: number, maxPlaces = places): string {
  if (value == null || value === '' || !isDecimal(value)) return '—';
  // One formatter per precision: a large journal formats thousands of figures per render.
  const key = `${places}:${maxPlaces}`;
  let f = decimalFormatters.get(key);
  if (!f) {
    f = new Intl.NumberFormat(undefined, { minimumFractionDigits: places, maximumFractionDigits: maxPlaces });
    decimalFormatters.set(key, f);
  }
  return f.format(value as Intl.StringNumericLiteral);
}

/** counted is a count with its noun: "1 fill", "3 fills". */
export function counted(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** tradesText is a count of trades with its wins, losses and breakevens (net P&L exactly 0): "12 (7W / 4L / 1BE)". */
export function tradesText(s: { trades: number; wins: number; losses: number; breakevens: number }): string {
  return `${s.trades} (${s.wins}W / ${s.losses}L / ${s.breakevens}BE)`;
}

/** formatPercent shows a percent figure such as "55.00" as "55.00%". */
export function formatPercent(value: string | null | undefined): string {
  const text = formatDecimal(value, 2);
  return text === '—' ? text : `${text}%`;
}

/** signOf classifies a decimal string without converting it to a float. */
export function signOf(value: string | null | undefined): 'positive' | 'negative' | 'zero' | 'none' {
  if (value == null || !isDecimal(value)) return 'none';
  if (/^-?0+(\.0+)?$/.test(value)) return 'zero';
  return value.startsWith('-') ? 'negative' : 'positive';
}

/** pnlClass is the CSS class colouring a P&L figure. */
export function pnlClass(value: string | null | undefined): string {
  const s = signOf(value);
  return s === 'positive' ? 'pnl-pos' : s === 'negative' ? 'pnl-neg' : '';
}

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });

/** One pair of formatters (the moment, and the zone's name) per locale and zone: a list formats hundreds of times per render. */
const zonedFormatters = new Map<string, [Intl.DateTimeFormat, Intl.DateTimeFormat]>();

function zonedFormat(locale: string | undefined, timeZone: string | undefined): [Intl.DateTimeFormat, Intl.DateTimeFormat] {
  const key = `${locale ?? ''}|${timeZone ?? ''}`;
  let f = zonedFormatters.get(key);
  if (!f) {
    const zone = timeZone ? { timeZone } : {};
    f = [
      new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', ...zone }),
      new Intl.DateTimeFormat(locale, { timeZoneName: 'short', ...zone }),
    ];
    zonedFormatters.set(key, f);
  }
  return f;
}

/** The zone times are shown in when a screen names none: the user's reporting zone once known (setDisplayZone). */
let displayZone: string | undefined;

/** setDisplayZone makes zone (the signed-in user's reporting zone) the one times are shown in by default. */
export function setDisplayZone(zone: string | undefined): void {
  displayZone = zone;
}

/**
 * formatDateTime shows a moment with the name of the zone it is shown in
 * ("Nov 2, 2026, 10:00 AM EST"): timeZone's (an account's) when given and
 * known, else the user's reporting zone, else the browser's.
 */
export function formatDateTime(value: string | null | undefined, timeZone?: string, locale?: string): string {
  if (!value) return '—';
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return '—';
  let f: [Intl.DateTimeFormat, Intl.DateTimeFormat];
  try {
    f = zonedFormat(locale, timeZone ?? displayZone);
  } catch {
    f = zonedFormat(locale, undefined); // an unknown zone: the browser's
  }
  const zone = f[1].formatToParts(d).find((p) => p.type === 'timeZoneName')?.value;
  return zone ? `${f[0].format(d)} ${zone}` : f[0].format(d);
}

/** One "YYYY-MM-DD" formatter per zone: a chart keys hundreds of bars by their day. */
const dayFormatters = new Map<string, Intl.DateTimeFormat>();

/** dayKey is the calendar day of an instant in a time zone ("2026-11-02"); the browser's zone for an unknown one. */
export function dayKey(value: string, timeZone: string | undefined): string {
  const key = timeZone ?? '';
  let f = dayFormatters.get(key);
  if (!f) {
    const options = { year: 'numeric', month: '2-digit', day: '2-digit' } as const;
    try {
      f = new Intl.DateTimeFormat('en-CA', { ...options, timeZone });
    } catch {
      f = new Intl.DateTimeFormat('en-CA', options);
    }
    dayFormatters.set(key, f);
  }
  return f.format(new Date(value));
}

/** browserZone is the browser's time zone, as a datetime-local field reads what is typed. */
export function browserZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** formatDay shows a YYYY-MM-DD calendar day without shifting it through a time zone. */
export function formatDay(day: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!m) return day;
  return dateFormat.format(new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), 12)));
}

/** minorToDecimal writes an integer amount of minor units as a decimal string (500, 2 → "5.00") without floats. */
export function minorToDecimal(minor: number, digits: number): string {
  if (!Number.isSafeInteger(minor)) return '';
  const negative = minor < 0;
  const s = String(Math.abs(minor)).padStart(digits + 1, '0');
  const whole = digits > 0 ? s.slice(0, -digits) : s;
  const frac = digits > 0 ? `.${s.slice(-digits)}` : '';
  return `${negative ? '-' : ''}${whole}${frac}`;
}

/** formatBytes writes a size the way a person reads it: "1.5 MB" (decimal units, as storage is sold). */
export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  const digits = unit === 0 || value >= 100 ? 0 : 1;
  return `${new Intl.NumberFormat(undefined, { maximumFractionDigits: digits }).format(value)} ${units[unit]}`;
}
