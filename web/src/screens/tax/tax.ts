// The tax report in words: the names of jurisdictions, Form 1099-B cases,
// tax years, matching rules and the report's missing inputs. The figures
// are the API's decimal strings, only formatted here.
import type { Schemas } from '../../api/client';
import { formatDay, formatDecimal, formatMoney } from '../../format';

export type Jurisdiction = NonNullable<Schemas['TaxSettings']['jurisdiction']>;
export type BasisReporting = Schemas['TaxSettings']['accounts'][number]['basisReporting'];
export type TaxReport = Schemas['TaxReport'];
export type TaxLot = Schemas['TaxLot'];
export type Missing = TaxReport['missing'][number];

export const jurisdictionNames: Record<Jurisdiction, string> = {
  us: 'United States',
  uk: 'United Kingdom',
  other: 'Other: plain FIFO',
};

export const basisReportingNames: Record<BasisReporting, string> = {
  reported: 'Form 1099-B with basis reported (box A or D)',
  not_reported: 'Form 1099-B without basis (box B or E)',
  none: 'No Form 1099-B (box C or F)',
};

const longDates = new Map<string, Intl.DateTimeFormat>();

/** formatLongDay is a YYYY-MM-DD day with its month in words ("6 April 2024" in Britain), never shifted through a zone. */
export function formatLongDay(day: string, locale?: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!m) return day;
  let f = longDates.get(locale ?? '');
  if (!f) {
    f = new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeZone: 'UTC' });
    longDates.set(locale ?? '', f);
  }
  return f.format(new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), 12)));
}

/**
 * taxYearLabel names a tax year: the calendar year in the US and elsewhere,
 * the UK's from 6 April to 5 April as "2024/25 (6 April 2024 – 5 April 2025)".
 */
export function taxYearLabel(jurisdiction: Jurisdiction, year: number, locale?: string): string {
  if (jurisdiction !== 'uk') return String(year);
  const next = String((year + 1) % 100).padStart(2, '0');
  return `${year}/${next} (${formatLongDay(`${year}-04-06`, locale)} – ${formatLongDay(`${year + 1}-04-05`, locale)})`;
}

/** latestFinishedYear is the last tax year that has ended on today (a YYYY-MM-DD day): the one a return is due for. */
export function latestFinishedYear(jurisdiction: Jurisdiction, today: string): number {
  const year = Number(today.slice(0, 4));
  if (jurisdiction === 'uk') return today.slice(5) >= '04-06' ? year - 1 : year - 2;
  return year - 1;
}

/** methodText says in words how the report matches sales with purchases. */
export function methodText(jurisdiction: Jurisdiction): string {
  switch (jurisdiction) {
    case 'us':
      return 'First in, first out (FIFO) per account and contract. Held more than a year is long-term. A loss is a wash sale when the same stock or contract was bought within 30 days before or after the sale in any of your US accounts: the loss is disallowed and added to the cost of the shares bought. Futures and broad-based index options (Section 1256) count 60% long-term and 40% short-term, and are treated as sold at their year-end price.';
    case 'uk':
      return 'HMRC share matching: a sale is matched with purchases of the same day, then of the next 30 days, then with the Section 104 pool at its average cost. All your UK accounts count as one.';
    default:
      return 'First in, first out (FIFO) per account and instrument, converted at each trade’s day, without holding periods, wash sales or other special rules: a starting point for a local accountant.';
  }
}

/** notCovered lists what the jurisdiction's rules leave to the trader and the accountant (docs/tax.md). */
export function notCovered(jurisdiction: Jurisdiction): string[] {
  switch (jurisdiction) {
    case 'us':
      return [
        'The mark-to-market election of section 475(f) and trader tax status.',
        'Constructive sales, straddles and their loss deferral.',
        'Wash sales through IRAs or a spouse’s accounts (they are not in the journal).',
        'Corporate actions (splits, mergers, spin-offs) and option exercise or assignment adjusting a stock’s basis.',
        'Specific identification of lots: only FIFO.',
        'Exchange holidays at the year end: the last weekday of December is used.',
        'The $3,000 loss limit and carryovers.',
      ];
    case 'uk':
      return [
        'Spread bets and CFDs, told apart only by what you flag in the journal.',
        'Futures and options are matched like shares, which HMRC treats differently in places (options exercised or lapsing, futures settled in cash).',
        'The annual exempt amount, the tax rates and losses brought forward.',
        'Shares held before 6 April 2008, corporate actions, employee shares and fund equalisation.',
        'Tax-free wrappers (ISA, SIPP): give such accounts another jurisdiction so they stay out.',
      ];
    default:
      return ['Every country’s own rules: holding periods, loss limits, allowances and rates.'];
  }
}

const matchRuleNames: Record<string, string> = {
  fifo: 'First in, first out',
  'same day': 'Same day',
  '30 days': 'Within 30 days',
  'section 104': 'Section 104 pool',
  'later acquisition': 'Later purchase',
  'year-end mark': 'Year-end price',
};

/** matchRuleText names how one part of a lot's basis was matched. */
export function matchRuleText(rule: string): string {
  return matchRuleNames[rule] ?? rule.charAt(0).toUpperCase() + rule.slice(1);
}

/** lotRuleText is a lot's term and Form 8949 box (US), its matching rules (UK), or FIFO. */
export function lotRuleText(lot: Pick<TaxLot, 'term' | 'box' | 'rule' | 'markToMarket'>, jurisdiction: Jurisdiction): string {
  if (jurisdiction === 'us') {
    if (lot.term === '1256') return lot.markToMarket ? 'Section 1256 (60/40), year-end price' : 'Section 1256 (60/40)';
    const term = lot.term === 'long' ? 'Long-term' : 'Short-term';
    return lot.box ? `${term}, box ${lot.box}` : term;
  }
  return lot.rule.split(', ').map(matchRuleText).join(', then ');
}

/** accountNames turns a lot's account ids (a UK lot may list several, comma-separated) into names. */
export function accountNames(ids: string | undefined, names: ReadonlyMap<string, string>): string {
  if (!ids) return '';
  return ids
    .split(',')
    .map((id) => names.get(id.trim()) ?? 'an account outside this report')
    .join(', ');
}

/** quantityText is a quantity of shares or contracts in the person's number format. */
export function quantityText(q: string | undefined): string {
  return formatDecimal(q, 0, 8);
}

/** dayList is days in words: "Mar 1, 2024", "Mar 1, 2024 and Mar 4, 2024", "Mar 1, 2024, Mar 4, 2024 and 3 more days". */
export function dayList(days: readonly string[], shown = 3): string {
  const words = days.slice(0, shown).map(formatDay);
  const more = days.length - words.length;
  if (more > 0) return `${words.join(', ')} and ${more} more day${more === 1 ? '' : 's'}`;
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}

/**
 * missingSentence says what a missing input stops and what to do, in the
 * trader's words: the pair and days of a rate, the contract, account and
 * day of a year-end price, the disposal still unmatched.
 */
export function missingSentence(m: Missing, names: ReadonlyMap<string, string>): string {
  const account = accountNames(m.account, names);
  const quantity = quantityText(m.quantity);
  switch (m.kind) {
    case 'rate':
      return `No ${m.pair ?? ''} exchange rate on or before ${dayList(m.days ?? [])}: the amounts of ${
        (m.days ?? []).length === 1 ? 'that day' : 'those days'
      } count as 0 until you add the rate on the exchange rates screen.`;
    case 'mark':
      return `${m.instrument ?? 'A contract'} (${quantity} open in ${account} on ${formatDay(m.date ?? '')}) has no year-end price: enter its settlement price from your broker’s statement, so its Section 1256 gain can be marked to market.`;
    default:
      return `${quantity} ${m.instrument ?? ''} sold on ${formatDay(m.date ?? '')} in ${account} has no purchase to match yet, so its cost is incomplete: record the purchase that closed it.`;
  }
}

/** washText says where a lot's disallowed loss went: "$250.00 of the loss disallowed, added to the basis of the 100 bought on Mar 15, 2024". */
export function washText(lot: Pick<TaxLot, 'adjustment' | 'washedTo' | 'short'>, currency: string): string {
  const targets = lot.washedTo ?? [];
  const how = lot.short ? 'sold short' : 'bought';
  const where = targets.map((t) => `the ${quantityText(t.quantity)} ${how} on ${formatDay(t.date ?? '')}`);
  const to = where.length > 0 ? `, added to the basis of ${where.join(' and ')}` : '';
  return `${formatMoney(lot.adjustment, currency)} of the loss disallowed${to}`;
}
