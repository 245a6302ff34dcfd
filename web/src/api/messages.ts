// The one place where the API's errors become sentences for people. The API
// answers with a code and, for validation, details naming a field path
// (`fills[1].quantity`) and a terse rule ("must be greater than 0"); those
// stay for programs. Here a detail becomes a sentence that names the field
// as the form labels it, writes times in the user's time zone and numbers
// in the user's format, and says what to do.
import { formatDateTime } from '../format';
import { formatExample } from '../numbers';

export interface Detail {
  field: string;
  message: string;
}

/** The part of ApiError this module reads (kept structural to avoid an import cycle). */
export interface ErrorLike {
  status: number;
  code: string | undefined;
  message: string;
  details: Detail[];
}

interface Label {
  /** How the form labels the field, as it reads inside a sentence ("the entry price"). */
  label: string;
  /** A field picked from a list: "Choose …" rather than "Enter …". */
  choose?: boolean;
}

/** What forms call the API's fields. A form may rename one (options.labels). */
const fieldLabels: Record<string, Label> = {
  accountId: { label: 'account', choose: true },
  accountCurrency: { label: 'account currency' },
  amount: { label: 'amount' },
  basisReporting: { label: 'Form 1099-B', choose: true },
  assetType: { label: 'asset type', choose: true },
  balance: { label: 'account balance' },
  baseCurrency: { label: 'base currency' },
  brokerageId: { label: 'brokerage', choose: true },
  caption: { label: 'caption' },
  category: { label: 'category', choose: true },
  confirmEmail: { label: 'confirmation' },
  conversionRate: { label: 'conversion rate' },
  currency: { label: 'currency' },
  currentPassword: { label: 'current password' },
  date: { label: 'date' },
  dateFormat: { label: 'date format', choose: true },
  defaultRiskPercent: { label: 'default risk %' },
  delimiter: { label: 'delimiter' },
  displayCurrency: { label: 'display currency' },
  dollarRisk: { label: 'dollar risk' },
  effectiveDate: { label: 'date' },
  endDate: { label: 'end date' },
  email: { label: 'email address' },
  entryPrice: { label: 'entry price' },
  fees: { label: 'fees' },
  file: { label: 'file', choose: true },
  filledAt: { label: 'date and time of the fill' },
  instrument: { label: 'contract' },
  jurisdiction: { label: 'tax jurisdiction', choose: true },
  kind: { label: 'kind', choose: true },
  maePrice: { label: 'adverse excursion (MAE)' },
  mfePrice: { label: 'favourable excursion (MFE)' },
  manualFees: { label: 'round-trip fees' },
  multiplier: { label: 'point value' },
  name: { label: 'name' },
  newPassword: { label: 'new password' },
  note: { label: 'note' },
  notes: { label: 'notes' },
  numberFormat: { label: 'number format', choose: true },
  occurredAt: { label: 'date and time' },
  pair: { label: 'pair' },
  password: { label: 'password' },
  pointValue: { label: 'point value' },
  presetId: { label: 'preset', choose: true },
  price: { label: 'price' },
  quantity: { label: 'quantity' },
  quoteCurrency: { label: 'quote currency' },
  recurrence: { label: 'repeat', choose: true },
  result: { label: 'result', choose: true },
  rate: { label: 'rate' },
  riskAmount: { label: 'risk amount' },
  riskPercent: { label: 'risk percent' },
  side: { label: 'side', choose: true },
  startDate: { label: 'start date' },
  stopLoss: { label: 'stop loss' },
  symbol: { label: 'symbol' },
  tagIds: { label: 'tags', choose: true },
  targetPrice: { label: 'target price' },
  timezone: { label: 'time zone' },
  tradeDate: { label: 'trading day of the file' },
  title: { label: 'title' },
  token: { label: 'link' },
  type: { label: 'fill type', choose: true },
};

/** How an indexed list's item is named: `fills[1]` is "fill 2". */
const itemNames: Record<string, string> = { fills: 'fill', rates: 'rate', columns: 'column', items: 'row', legs: 'leg', accounts: 'account', marks: 'year-end price' };

export interface MessageOptions {
  /** The form's own labels for API fields, e.g. { name: 'account name' }. */
  labels?: Record<string, string>;
  /** The user's IANA time zone; the browser's when absent. */
  timeZone?: string;
  /** The user's locale for numbers and dates; the browser's when absent. */
  locale?: string;
}

let defaults: MessageOptions = {};

/** setMessageDefaults records the signed-in user's time zone (and locale) for every message. */
export function setMessageDefaults(options: MessageOptions): void {
  defaults = { ...defaults, ...options };
}

function opts(o?: MessageOptions): MessageOptions {
  return { ...defaults, ...o, labels: { ...defaults.labels, ...o?.labels } };
}

function leafLabel(name: string, o: MessageOptions): Label {
  const own = o.labels?.[name];
  const known = fieldLabels[name];
  if (own) return { label: own, choose: known?.choose ?? false };
  return known ?? { label: words(name) };
}

/** words spells a camelCase name as words: "contractMonth" → "contract month". */
function words(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_.]+/g, ' ')
    .toLowerCase();
}

/**
 * fieldLabel names a field path as the form does: `fills[1].quantity` is
 * "the quantity of fill 2", `rate.rate` is "the rate".
 */
export function fieldLabel(path: string, options?: MessageOptions): { label: string; choose: boolean } {
  const o = opts(options);
  const whole = o.labels?.[path];
  if (whole) return { label: whole, choose: false };
  const segments = [...path.matchAll(/([A-Za-z_][A-Za-z0-9_]*)(?:\[(\d+)\])?/g)];
  const last = segments[segments.length - 1];
  if (!last) return { label: 'this field', choose: false };
  const leaf = last[2] !== undefined ? { label: `${itemNames[last[1] ?? ''] ?? words(last[1] ?? '')} ${Number(last[2]) + 1}` } : leafLabel(last[1] ?? '', o);
  const owners = segments
    .slice(0, -1)
    .filter((s) => s[2] !== undefined)
    .map((s) => `${itemNames[s[1] ?? ''] ?? words(s[1] ?? '')} ${Number(s[2]) + 1}`);
  const label = owners.length ? `${leaf.label} of ${owners.reverse().join(' of ')}` : leaf.label;
  return { label, choose: leaf.choose ?? false };
}

const timestamp = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})/g;
const uuid = /\s*\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
const decimalNumber = /(?<![\w.])-?\d+\.\d+(?![\w.])|(?<![\w.])\d{5,}(?![\w.])/g;

/** localTime writes an RFC 3339 time in the user's zone: "Jan 2, 2024, 9:30 AM". */
function localTime(value: string, o: MessageOptions): string {
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return value;
  return formatDateTime(value, o.timeZone, o.locale);
}

/** humanize replaces what only a developer reads in free text: UTC times, ids, bare field names, plain decimals. */
function humanize(text: string, o: MessageOptions): string {
  return text
    .replace(timestamp, (t) => localTime(t, o))
    .replace(uuid, '')
    .replace(/\?confirm=true/g, 'confirming')
    .replace(/\b([a-z]+[A-Z][A-Za-z]*)\b/g, (name) => (fieldLabels[name] || o.labels?.[name] ? leafLabel(name, o).label : words(name)))
    .replace(decimalNumber, (n) => formatExample(n, o.locale));
}

/** readable is free text from the API (a located CSV problem) with times in the user's zone and no ids or field names. */
export function readable(text: string, options?: MessageOptions): string {
  return sentence(humanize(text, opts(options)));
}

function sentence(text: string): string {
  const t = text.trim().replace(/[\s;:,]+$/, '');
  if (t === '') return t;
  const first = t.charAt(0).toUpperCase() + t.slice(1);
  return /[.!?]$/.test(first) ? first : `${first}.`;
}

type Rule = [RegExp, (m: RegExpMatchArray, label: string, o: MessageOptions, choose: boolean) => string];

/** The API's rules, most specific first. `label` reads "the quantity of fill 2". */
const rules: Rule[] = [
  [/^is required for a future of root (\S+), which has no built-in point value/, (m, l) => `Enter ${the(l)}: futures of root ${m[1]} have no built-in point value (the amount one point of price moves one contract)`],
  [/^is not your current password$/, () => 'This is not your current password: check it and try again'],
  [/^is already your email address$/, () => 'This is already your email address'],
  [/^is required$|^is empty$/, (_m, l, _o, choose) => (choose ? `Choose ${the(l)}` : `Enter ${the(l)}`)],
  [/decimal string like|holding a decimal|must be a decimal|must be a number/, (_m, l, o) => `Enter ${the(l)} as a number, like ${formatExample('1234.56', o.locale)}`],
  [/^must be a whole number/, (_m, l) => `Enter ${the(l)} as a whole number, like 100`],
  [/^must be (?:positive|greater than 0)$/, (_m, l) => `${cap(the(l))} must be more than 0`],
  [/^must not be negative$|^must be at least 0$/, (_m, l) => `${cap(the(l))} cannot be negative`],
  [/^must be greater than 0 and at most (\S+)$/, (m, l, o) => `${cap(the(l))} must be more than 0 and at most ${formatExample(m[1] ?? '', o.locale)}`],
  [/^must be greater than 0 and at most (\S+), with at most (\d+) decimal places$/, (m, l, o) => `${cap(the(l))} must be more than 0 and at most ${formatExample(m[1] ?? '', o.locale)}, with at most ${m[2]} digits after the decimal point`],
  [/^must be (?:at least|between) (\S+) and (?:at most )?(\S+)$/, (m, l, o) => `${cap(the(l))} must be between ${formatExample(m[1] ?? '', o.locale)} and ${formatExample(m[2] ?? '', o.locale)}`],
  [/^must be between 1970 and tomorrow$/, (_m, l) => `${cap(the(l))} must be between 1970 and tomorrow`],
  [/^must (?:be|have) at most (\d+) characters$/, (m, l) => `${cap(the(l))} is too long: shorten it to ${m[1]} characters or fewer`],
  [/^must be at most (\d+) bytes$/, (_m, l) => `${cap(the(l))} is too long: shorten it`],
  [/^must be at least (\d+) characters/, (m, l) => `${cap(the(l))} needs at least ${m[1]} characters`],
  [/^must have at most (\d+) decimal places$/, (m, l) => `${cap(the(l))} can have at most ${m[1]} digits after the decimal point`],
  [/ISO 4217 currency code/, (_m, l) => `Enter ${the(l)} as a three-letter code, such as USD or EUR`],
  [/IANA time zone/, (_m, l) => `Choose ${the(l)} from the list, such as Europe/Berlin or America/New_York`],
  [/^must be a date YYYY-MM-DD from (\d{4})-\d\d-\d\d to (\d{4})-\d\d-\d\d/, (m, l) => `Enter ${the(l)} as a date from ${m[1]} to ${m[2]}, written like 2024-01-31`],
  [/^must be a date/, (_m, l) => `Enter ${the(l)} as a date`],
  [/^must not be before (\w+)$/, (m, l, o) => `${cap(the(l))} cannot be before ${the(leafLabel(m[1] ?? '', o).label)}`],
  [/^is required \((.+)\)$/, (m, l) => `Enter ${the(l)}: ${m[1]}`],
  [/^must be left out: (.+)$/, (m, l, o) => `Leave ${the(l)} empty: ${humanize(m[1] ?? '', o)}`],
  [/^must be a currency pair such as /, (_m, l) => `Enter ${the(l)} as two currency codes, like EUR/USD or EURUSD (a metal first for gold or silver, like XAU/USD)`],
  [/^must be a crypto pair such as /, (_m, l) => `Enter ${the(l)} as a crypto pair, like BTC/USDT, BTCUSDT or BTC-USD (a perpetual like BTC/USDT:PERP)`],
  [/^must be a category id from /, () => 'Choose a category from the list'],
  [/^is not a built-in category or one of yours: "(.*)"$/, (m) => `There is no category “${m[1]}”: use a built-in one (data, platform, education, hardware, subscriptions, other) or one of yours, created on the Expenses page first`],
  [/^is not one of your accounts: "(.*)"$/, (m) => `You have no account named “${m[1]}”: use the name of one of your accounts, or leave it empty`],
  [/^must be one of your accounts$/, () => 'Choose one of your accounts'],
  [/^is an account in (\w+), but the import's account is in (\w+)/, (m) => `This account is in ${m[1]}, the import's account in ${m[2]}: choose an account in ${m[2]}`],
  [/^is required: the file has times but no dates/, (_m, l) => `Enter ${the(l)}: the file has times but no dates`],
  [/^is required: the file names no symbol/, (_m, l) => `Enter ${the(l)}: the file names no symbol (a ticker like AAPL, a future like /ESH25, or an option symbol)`],
  [/^applies only to a file without dates/, (_m, l) => `Leave ${the(l)} empty: this file has dates of its own`],
  [/^applies only to a file that names no symbol/, (_m, l) => `Leave ${the(l)} empty: this file names its symbols`],
  [/^is already the name of another of your accounts$/, () => 'You already have an account with this name: choose another name'],
  [/^must differ from (\w+)$/, (m, l, o) => `${cap(the(l))} must differ from ${the(leafLabel(m[1] ?? '', o).label)}`],
  [/^must be (below|above) (?:the )?(.+?) for a (long|short)$/, (m, l, o) => `For a ${m[3]} position, ${the(l)} must be ${m[1]} ${the(leafLabel(m[2] ?? '', o).label)}`],
  [/^must be ([a-z_-]+(?:, [a-z_-]+)*) or ([a-z_-]+)$/, (m, l) => `Choose ${the(l)}: ${(m[1] ?? '').replace(/_/g, ' ')} or ${(m[2] ?? '').replace(/_/g, ' ')}`],
  // A field of some asset types only: a fill's rate (forex, crypto and CFDs), a CFD's currency, a point value.
  [/^applies only to (?!an? )(.+?)(?: \((.+)\))?$/, (m, l, o) => `Leave ${the(l)} empty: only ${m[1]} take one${m[2] ? ` (${humanize(m[2], o)})` : ''}`],
];

function the(label: string): string {
  return /^(the|a|an|your)\b/i.test(label) ? label : `the ${label}`;
}

function cap(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * detailSentence is one field's problem as a sentence: "Enter the quantity
 * of fill 2 as a number, like 1,234.56."
 */
export function detailSentence(detail: Detail, options?: MessageOptions): string {
  const o = opts(options);
  const { label, choose } = fieldLabel(detail.field, o);
  // The journal's fill checks repeat the field and describe the fill: "exit fill <id> of 50 at <time>: price must be …".
  let rule = detail.message.trim();
  let context = '';
  const colon = /^((?:entry|exit)? ?fill .*?): (.*)$/.exec(rule);
  if (colon) {
    context = humanize(colon[1] ?? '', o);
    rule = colon[2] ?? rule;
  }
  const leaf = detail.field.split(/[.[\]]/).filter(Boolean).pop() ?? '';
  if (leaf && rule.startsWith(`${leaf} `)) rule = rule.slice(leaf.length + 1);
  for (const [pattern, write] of rules) {
    const m = rule.match(pattern);
    if (m) return sentence(write(m, label, o, choose)) + (context ? ` (${context})` : '');
  }
  const closed = /^the position was closed at (.+?); a later trade belongs to a new position$/.exec(rule);
  if (closed) {
    return sentence(`This position closed on ${localTime(closed[1] ?? '', o)}: record a later trade as a new position`);
  }
  return sentence(`${cap(the(label))}: ${humanize(rule, o)}`);
}

/** What a status or code means to a person, when no detail says more. */
function codeSentence(err: ErrorLike, o: MessageOptions): string | undefined {
  switch (err.code) {
    case 'RATE_LIMITED':
      return 'Too many attempts. Wait a moment and try again.';
    case 'INVALID_CREDENTIALS':
      return 'Wrong email or password.';
    case 'UNAUTHENTICATED':
      return 'You are signed out. Sign in again to continue.';
    case 'EMAIL_TAKEN':
      return 'An account with this email already exists. Sign in, or reset its password.';
    case 'REGISTRATION_DISABLED':
      return 'This Trade Journal is not taking new accounts right now.';
    case 'ACCOUNT_DISABLED':
      return 'This account is disabled. Ask the administrator of this Trade Journal to enable it again.';
    case 'ADMIN_REQUIRED':
      return 'Only an administrator can do this.';
    case 'CSRF_REJECTED':
      return 'The request came from another site and was refused. Reload the page and try again.';
    case 'INVALID_JSON':
      return 'The form could not be read by the server. Reload the page and try again.';
    case 'PAYLOAD_TOO_LARGE':
      return 'This is too large to send at once. Split it into smaller parts (a CSV file by year, for example) and try again.';
    case 'UNSUPPORTED_MEDIA_TYPE':
      return 'This kind of file is not supported here.';
    case 'SERVICE_UNAVAILABLE':
      return 'The journal cannot reach its database right now. Try again in a minute.';
    case 'BILLING_NOT_AVAILABLE':
      return 'Purchases are not available on this instance.';
    case 'INSUFFICIENT_CREDITS':
      return 'You have run out of credits. Buy a credit pack to continue.';
    case 'JOURNAL_NOT_EMPTY':
      return 'Your journal already holds data, and a backup goes only into an empty journal. Nothing was restored.';
    case 'PLAN_LIMIT_REACHED':
      // The API says which limit and what makes room; Pro is bought on the Billing page.
      return sentence(
        humanize(err.message.replace('upgrade to Pro', 'upgrade to Pro on the Billing page'), o).replace(/(?<![\d.,])\d{4,}(?![\d,]|\.\d)/g, (n) =>
          new Intl.NumberFormat(o.locale).format(Number(n)),
        ),
      );
    case 'SUBSCRIPTION_ACTIVE':
      return 'Your Pro subscription is still running. Cancel it on the Billing page first, then delete your account.';
    case 'TURN_IN_PROGRESS':
      return 'The assistant is still answering your previous message. Wait for it to finish.';
    case 'BAD_GATEWAY':
    case 'GATEWAY_TIMEOUT':
      return 'A service this depends on did not answer. Try again in a minute.';
    case 'CONFLICT':
      return sentence(humanize(err.message.replace(/[:;,]?\s*repeat with \?confirm=true\s*$/, ''), o));
  }
  if (err.status === 404) return 'This no longer exists: it may have been deleted. Go back and reload the list.';
  if (err.status === 429) return 'Too many attempts. Wait a moment and try again.';
  if (err.status >= 500) return 'Something went wrong on the server. Try again; if it keeps happening, tell whoever runs this journal.';
  return undefined;
}

/**
 * errorSentences is what a form shows for a failed request: one sentence
 * per invalid field, or one sentence for the whole answer.
 */
export function errorSentences(err: ErrorLike, options?: MessageOptions): string[] {
  const o = opts(options);
  if (err.details.length > 0) return err.details.map((d) => detailSentence(d, o));
  const known = codeSentence(err, o);
  if (known) return [known];
  return [sentence(humanize(err.message, o)) || 'Something went wrong. Try again.'];
}
