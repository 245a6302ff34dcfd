// Forex, crypto and CFDs in the position screens: how their symbols are
// written, a forex quantity in lots or units, a CFD's currency and value per
// point, a fill's rate in words, the P&L in the quote currency beside the
// account's, and what a position waiting for an exchange rate needs.
import { Link } from 'react-router';
import type { Schemas } from '../../api/client';
import type { AssetType } from '../../assetTypes';
import { rateLink } from '../../components/MissingRates';
import { Field } from '../../components/ui';
import { listed } from '../../components/unsaved';
import { multiplyDecimals } from '../../decimal';
import { formatAmount, formatDay, formatDecimal } from '../../format';
import { normalizeDecimal } from '../../numbers';
import { currencyCode, pairCurrencies } from '../calculator/stepped';
import { plainNumber } from './futures';

/** How a forex pair is written: the forms the journal reads (instrument.ParseForex). */
export const forexHint = 'Currency pair, e.g. EUR/USD, EURUSD or EURUSD.m; gold as XAU/USD. Quantities are in units of the first currency: give lots or units with each fill.';

/** How a crypto pair is written: spot, perpetuals and dated futures (instrument.ParseCrypto). */
export const cryptoHint = 'Pair, e.g. BTC/USDT, BTCUSDT or BTC-USD; a perpetual as BTC/USDT:PERP or BTCUSDT.P (quantities in coins, to 18 decimal places).';

/** How a CFD is named: a ticker, its currency and point value given apart. */
export const cfdHint = 'Ticker, e.g. US500 or GER40 (quantities are contracts). Give the currency it is priced in and the value of a point below.';

/** quotedApart: a forex, crypto or CFD position's prices and P&L are in its quote currency, converted into the account's at each fill's rate. */
export function quotedApart(assetType: AssetType): boolean {
  return assetType === 'forex' || assetType === 'crypto' || assetType === 'cfd';
}

/** The sizes a forex quantity is typed in: units of the base, or lots of it. */
export type LotSize = 'units' | 'standard' | 'mini' | 'micro';

const lotFractions: Record<Exclude<LotSize, 'units'>, string> = { standard: '1', mini: '0.1', micro: '0.01' };
const lotNames: Record<LotSize, string> = { units: 'Units', standard: 'Standard lots', mini: 'Mini lots', micro: 'Micro lots' };

/**
 * lotUnits is the units of a base in one standard lot, as the journal counts them (instrument.Pair.LotUnits):
 * 100,000 of a currency, 100 troy ounces of gold, 5,000 of silver, 50 of platinum or palladium.
 */
export function lotUnits(base: string | null): string {
  switch (base) {
    case 'XAU':
      return '100';
    case 'XAG':
      return '5000';
    case 'XPT':
    case 'XPD':
      return '50';
  }
  return '100000';
}

/** unitsPerLot is the units of one lot of a size: a mini lot of EUR is 10,000. */
export function unitsPerLot(size: Exclude<LotSize, 'units'>, base: string | null): string {
  return multiplyDecimals(lotUnits(base), lotFractions[size]) ?? lotUnits(base);
}

/**
 * unitsOf is a forex quantity as the API takes it, in units of the base: 1.5 standard lots of EUR are "150000".
 * What is not a number is sent as typed, for the API to refuse in words.
 */
export function unitsOf(quantity: string, size: LotSize, base: string | null): string {
  const q = normalizeDecimal(quantity);
  if (size === 'units' || q === '') return q;
  return multiplyDecimals(q, unitsPerLot(size, base)) ?? q;
}

/** LotSizeOptions are the choices of a forex fill's "Quantity in" select, each with its units: "Mini lots (10,000)". */
export function LotSizeOptions({ base }: { base: string | null }) {
  return (
    <>
      {(['standard', 'mini', 'micro', 'units'] as const).map((s) => (
        <option key={s} value={s}>
          {lotNames[s]}
          {s === 'units' ? '' : ` (${formatDecimal(unitsPerLot(s, base), 0, 2)})`}
        </option>
      ))}
    </>
  );
}

/** forexQuantityHint says what a forex quantity is in units: "= 150,000 units of EUR", or what a lot is while none is typed. */
export function forexQuantityHint(quantity: string, size: LotSize, base: string | null): string {
  const of = base ?? 'the first currency';
  if (size === 'units') return `Units of ${of}: a standard lot is ${formatDecimal(lotUnits(base), 0)}.`;
  const q = normalizeDecimal(quantity);
  const units = multiplyDecimals(q, unitsPerLot(size, base));
  if (units !== null && q !== '') return `= ${formatDecimal(units, 0, 18)} units of ${of}.`;
  return `A ${lotNames[size].toLowerCase().replace(/s$/, '')} is ${formatDecimal(unitsPerLot(size, base), 0, 2)} units of ${of}.`;
}

/** The quote assets a crypto pair written without a separator (BTCUSDT) ends in, longest first (as instrument.ParseCrypto splits them). */
const cryptoQuotes = ['FDUSD', 'USDT', 'USDC', 'BUSD', 'TUSD', 'USDE', 'DAI', 'USD', 'EUR', 'GBP', 'JPY', 'AUD', 'CAD', 'CHF', 'TRY', 'BRL', 'BTC', 'ETH', 'BNB', 'SOL'];

/**
 * cryptoCurrencies guesses a crypto pair's base and quote from what was typed (BTC/USDT, BTC-USD, BTCUSDT,
 * BTC/USDT:PERP, BTCUSDT.P, BTC-PERP), for the words of the rate's label only: the server reads the symbol itself.
 * null while it reads as no pair.
 */
export function cryptoCurrencies(symbol: string): { base: string; quote: string } | null {
  const s = symbol.trim().toUpperCase();
  const perp = /^([A-Z0-9]{2,10})-PERP$/.exec(s);
  if (perp) return { base: perp[1] ?? '', quote: 'USD' };
  const core = s.replace(/(?::[A-Z0-9]+|\.P|[-_]PERP|[-_]\d{6})$/, '');
  const apart = /^([A-Z0-9]{2,10})[/\-_]([A-Z0-9]{2,10})$/.exec(core);
  if (apart) return { base: apart[1] ?? '', quote: apart[2] ?? '' };
  if (!/^[A-Z0-9]+$/.test(core)) return null;
  const quote = cryptoQuotes.find((q) => core.endsWith(q) && core.length - q.length >= 2);
  return quote ? { base: core.slice(0, -quote.length), quote } : null;
}

/** What a fill's inputs need to know of the position's instrument and account: the base and quote of its prices, and the account's currency. */
export interface FillMarket {
  assetType: AssetType;
  base: string | null;
  quote: string | null;
  account: string | null;
}

/**
 * formMarket is what the new-position form knows of the instrument as typed: a forex pair's currencies as the
 * calculator reads them (pairCurrencies), a crypto pair's guessed, a CFD's currency (blank: the account's).
 */
export function formMarket(assetType: AssetType, symbol: string, quoteCurrency: string, account: string | null): FillMarket {
  const none = { assetType, base: null, quote: null, account };
  switch (assetType) {
    case 'forex':
      return { ...none, ...pairCurrencies(symbol) };
    case 'crypto':
      return { ...none, ...cryptoCurrencies(symbol) };
    case 'cfd':
      return { ...none, quote: currencyCode(quoteCurrency) || account };
  }
  return none;
}

/** positionMarket is what a saved position says of its instrument (a CFD without a currency of its own is in the account's). */
export function positionMarket(p: Pick<Schemas['Position'], 'assetType' | 'baseCurrency' | 'quoteCurrency'>, account: string | null): FillMarket {
  return { assetType: p.assetType, base: p.baseCurrency ?? null, quote: p.quoteCurrency ?? (p.assetType === 'cfd' ? account : null), account };
}

/** rateLabel names a fill's rate in words: "Value of 1 JPY in USD". */
export function rateLabel(m: FillMarket): string {
  return m.quote && m.account ? `Value of 1 ${m.quote} in ${m.account}` : 'Rate';
}

/** rateHint says that the rate may be left blank, and what the journal then takes. */
export function rateHint(m: FillMarket): string {
  if (m.quote && m.account && m.quote === m.account) return `Leave blank: the prices are in ${m.account}, the account's currency, so the rate is 1.`;
  if (m.assetType === 'forex' && m.base && m.base === m.account) return `Leave blank: the account is in ${m.account}, the pair's base, so the journal takes 1 ÷ the fill's price.`;
  if (m.quote && m.account && !/^[A-Z]{3}$/.test(m.quote)) {
    return `Give it from your broker: exchange rates take three-letter codes, so the journal finds no ${m.quote} rate, and a trade without one waits for it.`;
  }
  if (m.quote && m.account) return `Optional. Blank: the journal takes your ${m.quote}/${m.account} exchange rate of the fill's day. Give it to use your broker's.`;
  return "Optional: what 1 unit of the quote currency was worth in the account's currency. Blank: the journal finds it.";
}

/** CfdFields are a CFD's currency ("Priced in", blank for the account's) and value per point. */
export function CfdFields({
  quoteCurrency,
  multiplier,
  account,
  onChange,
  errorOf,
}: {
  quoteCurrency: string;
  multiplier: string;
  account: string | null;
  onChange: (change: { quoteCurrency?: string; multiplier?: string }) => void;
  errorOf: (field: string) => string | undefined;
}) {
  const quote = currencyCode(quoteCurrency) || account || "the account's currency";
  return (
    <>
      <Field
        label="Priced in"
        maxLength={3}
        autoCapitalize="characters"
        spellCheck={false}
        placeholder={account ?? ''}
        value={quoteCurrency}
        onChange={(e) => onChange({ quoteCurrency: e.target.value.toUpperCase() })}
        error={errorOf('quoteCurrency')}
        hint={`The currency the CFD is priced in, when it is not the account's: EUR for a DAX CFD in a dollar account. Blank: ${account ?? "the account's"}.`}
      />
      <Field
        label="Value per point"
        inputMode="decimal"
        placeholder="1"
        value={multiplier}
        onChange={(e) => onChange({ multiplier: e.target.value })}
        error={errorOf('multiplier')}
        hint={`What one point of price moves one contract, in ${quote}. Blank: 1.`}
      />
    </>
  );
}

type Figures = Pick<Schemas['PositionSummary'], 'quoteCurrency' | 'quoteGrossPnl' | 'grossPnl' | 'awaitingRate'>;

/**
 * quotePnl is a position's P&L in its quote currency and in the account's: ["+100,000 JPY", "+662.25 USD"], the
 * account's side "USD awaiting a rate" while an exit has none. null when there is nothing apart to show: not forex,
 * crypto or a CFD, or priced in the account's currency.
 */
export function quotePnl(p: Figures, account: string | undefined): [string, string] | null {
  if (!p.quoteCurrency || p.quoteGrossPnl == null || !account || p.quoteCurrency === account) return null;
  return [formatAmount(p.quoteGrossPnl, p.quoteCurrency), p.awaitingRate ? `${account} awaiting a rate` : formatAmount(p.grossPnl, account)];
}

/** quotePnlText is quotePnl in one line: "+100,000 JPY · +662.25 USD". */
export function quotePnlText(p: Figures, account: string | undefined): string | null {
  return quotePnl(p, account)?.join(' · ') ?? null;
}

/** marketText describes a forex, crypto or CFD position's prices: "Forex · prices in JPY, quantities in units of USD"; "" for other asset types. */
export function marketText(p: Pick<Schemas['Position'], 'assetType' | 'baseCurrency' | 'quoteCurrency' | 'multiplier'>, account: string | undefined): string {
  const quote = p.quoteCurrency ?? account;
  const prices = quote ? ` · prices in ${quote}` : '';
  const point = p.multiplier !== 1 ? ` · value per point ${plainNumber(p.multiplier)}` : '';
  switch (p.assetType) {
    case 'forex':
      return `Forex${prices}${p.baseCurrency ? `, quantities in units of ${p.baseCurrency}` : ''}`;
    case 'crypto':
      return `Crypto${prices}${point}`;
    case 'cfd':
      return `CFD${prices}${point}`;
  }
  return '';
}

/** The UTC days (YYYY-MM-DD) of the exits without a rate: the days an exchange rate is wanted for. */
function waitingDays(p: Pick<Schemas['Position'], 'fills'>): string[] {
  const days = p.fills.filter((f) => f.type === 'exit' && (f.rate ?? null) === null).map((f) => f.filledAt.slice(0, 10));
  return [...new Set(days)].sort();
}

/**
 * AwaitingRateNote says what a position waiting for an exchange rate lacks and what to do. Its P&L waits when an exit
 * has no rate of the quote currency into the account's: the rate of the exits' days is stored on the Exchange rates
 * screen, or given on the exit fill. A crypto fee charged in another coin (rateNeeded "BNB/USD") waits for that coin's
 * rate. An exchange rate's codes are three letters: a USDT-quoted trade takes its rate on the fill only.
 */
export function AwaitingRateNote({ p, account }: { p: Pick<Schemas['Position'], 'quoteCurrency' | 'rateNeeded' | 'fills'>; account: string | undefined }) {
  const [needFrom, needTo] = (p.rateNeeded ?? '').split('/');
  const from = needFrom || p.quoteCurrency || 'the quote currency';
  const to = needTo || account || "the account's currency";
  const pair = p.rateNeeded ?? `${from}/${to}`;
  const fee = Boolean(p.quoteCurrency && needFrom && needFrom !== p.quoteCurrency);
  const days = fee ? [] : waitingDays(p);
  const storable = /^[A-Z]{3}\/[A-Z]{3}$/.test(pair);
  const rateLinkText = <Link to={rateLink(pair, days[0])}>add a {pair} rate</Link>;
  return (
    <div className="note note-warn" role="status" data-testid="awaiting-rate">
      <p>
        {fee ? `A fee of this trade is in ${from}` : `This trade's P&L is in ${from}`}; there is no {from} → {to} rate
        {days.length ? ` for ${listed(days.map(formatDay))}` : ''} yet, so it is left out of your totals.
      </p>
      {fee ? (
        <p>To count it, {rateLinkText} of the fee&apos;s day on the Exchange rates screen.</p>
      ) : storable ? (
        <p>
          To count it, {rateLinkText} on the Exchange rates screen, or edit the exit fill below and give its rate (the value of 1 {from} in {to}).
        </p>
      ) : (
        <p>
          To count it, edit the exit fill below and give its rate (the value of 1 {from} in {to}): exchange rates take three-letter codes only.
        </p>
      )}
    </div>
  );
}

/** AwaitingRateBadge marks a position waiting for an exchange rate in the positions list. */
export function AwaitingRateBadge({ pair }: { pair: string | null | undefined }) {
  return (
    <span className="chip chip-warn" title={`Left out of your totals until there is ${pair ? `a ${pair}` : 'an'} exchange rate of its exit's day.`}>
      awaiting rate
    </span>
  );
}

/** fillRateText is a fill's rate as the fills table shows it: the number, and whether it was given or found. */
export function fillRateText(f: Pick<Schemas['Fill'], 'rate' | 'rateGiven'>): { rate: string; how: string } {
  if (f.rate == null) return { rate: '—', how: '' };
  return { rate: formatDecimal(f.rate, 2, 12), how: f.rateGiven ? 'given' : 'found' };
}
