// Futures and futures options in the position screens: the asset-type
// choices, the optional multiplier (point value) input, and how a contract
// is shown.
import type { Schemas } from '../../api/client';
import { assetTypeName, assetTypes, type AssetType } from '../../assetTypes';
import { Field } from '../../components/ui';

export type { AssetType };

/** How a future is named: the contract symbol the journal parses into root and month. */
export const futureHint = 'Contract symbol, e.g. ESZ24, ESZ4 or /ESZ24 (quantities are contracts).';

/** How a futures option is named: its future, expiry, right and strike, in the platforms' forms. */
export const futureOptionHint =
  'Future, expiry (YYMMDD), C or P and strike, e.g. ./ESZ24 241220C5000; ./ESZ24C5000 or /ESZ4 C5000 for a quarterly equity index option, ./EW4X24C5900 for a CME series (quantities are contracts, prices in points).';

/** takesPointValue: futures and futures options take a point value; stocks and options have theirs fixed. */
export function takesPointValue(assetType: AssetType): boolean {
  return assetType === 'future' || assetType === 'future_option';
}

/** What the position form adds to an asset type's name: what its symbol is. */
const symbolForms: Partial<Record<AssetType, string>> = { option: 'OCC symbol', future: 'contract', forex: 'currency pair' };

/** AssetTypeOptions are the choices of the position form's asset-type select: "Option (OCC symbol)", "CFD". */
export function AssetTypeOptions() {
  return (
    <>
      {assetTypes.map((t) => (
        <option key={t} value={t}>
          {assetTypeName[t]}
          {symbolForms[t] ? ` (${symbolForms[t]})` : ''}
        </option>
      ))}
    </>
  );
}

/**
 * MultiplierField is the futures-only point value. Blank leaves it to the
 * journal's table of known roots; the API's error (a root without a built-in
 * point value) lands on it.
 */
export function MultiplierField({ value, onChange, error }: { value: string; onChange: (v: string) => void; error: string | undefined }) {
  return (
    <Field
      label="Multiplier (point value)"
      inputMode="decimal"
      placeholder="built-in for known contracts"
      value={value}
      onChange={(e) => onChange(e.target.value)}
      error={error}
      hint="What one point of price moves one contract (ES 50, MES 5, MYM 0.5). Leave blank for a known contract."
    />
  );
}

/** plainNumber writes a multiplier (at most 8 places) without an exponent: 1e-8 becomes 0.00000001. */
export function plainNumber(n: number): string {
  return n
    .toFixed(8)
    .replace(/(\.\d*?)0+$/, '$1')
    .replace(/\.$/, '');
}

const monthNames = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** contractMonthText turns 2024-12 into "Dec 2024" (fixed English month names, as on exchange calendars). */
export function contractMonthText(month: string | null): string {
  const m = /^(\d{4})-(\d{2})$/.exec(month ?? '');
  const name = m ? monthNames[Number(m[2]) - 1] : undefined;
  return m && name ? `${name} ${m[1]}` : (month ?? '');
}

type Instrument = Pick<Schemas['Position'], 'assetType' | 'underlying' | 'contractMonth' | 'multiplier' | 'optionRight' | 'optionStrike'>;

/** contractLabel names a future ("ES Dec 2024") or a futures option ("ES Dec 2024 5000 call"); "" for stock and options. */
export function contractLabel(p: Instrument): string {
  if (!takesPointValue(p.assetType)) return '';
  const future = [p.underlying, contractMonthText(p.contractMonth)].filter(Boolean).join(' ');
  if (p.assetType !== 'future_option') return future;
  const right = p.optionRight === 'P' ? 'put' : p.optionRight === 'C' ? 'call' : '';
  return [future, p.optionStrike, right].filter(Boolean).join(' ');
}

/** contractText describes a future as "ES Dec 2024 · ×50", a futures option as "ES Dec 2024 5000 call · ×50"; "" for stock and options. */
export function contractText(p: Instrument): string {
  if (!takesPointValue(p.assetType)) return '';
  return `${contractLabel(p)} · ×${plainNumber(p.multiplier)}`;
}
