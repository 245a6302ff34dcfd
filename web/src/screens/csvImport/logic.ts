// The CSV import wizard's request: the options part, built from the form.
import type { Schemas } from '../../api/client';
import { assetTypeName, assetTypes, type AssetType } from '../../assetTypes';

export type Options = Schemas['CsvImportOptions'];
type Mapping = Schemas['CsvImportMapping'];
type SavedMapping = Schemas['CsvImportSavedMapping'];
/** MappingRules are a mapping's parts beyond its columns (filters, vocabularies, defaults). */
export type MappingRules = Omit<Mapping, 'columns' | 'hasHeader' | 'delimiter'>;
type RowShape = 'execution' | 'round-trip';

/**
 * importedAssetTypes are the asset types the broker files are read as, and so a mapping's default asset type may
 * be: every one (forex, crypto and CFD rows too).
 */
export const importedAssetTypes: readonly AssetType[] = assetTypes;

export interface ImportForm {
  accountId: string;
  source: 'preset' | 'mapping';
  presetId: string;
  rowShape: RowShape;
  hasHeader: boolean;
  delimiter: string;
  columns: Record<string, string>;
  timezone: string;
  dateFormat: '' | 'iso' | 'us' | 'eu' | 'iso-datetime';
  numberFormat: '' | 'us' | 'eu';
  /**
   * In a file of several accounts: each of its accounts to one of the
   * user's account ids, or to 'skip'. An account not chosen yet is absent.
   */
  accountMap: Record<string, string>;
  /** The trading day (YYYY-MM-DD) of a file with times but no dates (DAS Trader). */
  tradeDate: string;
  /** The instrument of a file that names none (TradeStation's trades list). */
  symbol: string;
  /** The mapping's rules: filters, vocabularies, default asset type and multiplier. */
  rules: MappingRules;
}

export const initialImportForm: ImportForm = {
  accountId: '',
  source: 'preset',
  presetId: '',
  rowShape: 'execution',
  hasHeader: true,
  delimiter: ',',
  columns: {},
  timezone: '',
  dateFormat: '',
  numberFormat: '',
  accountMap: {},
  tradeDate: '',
  symbol: '',
  rules: {},
};

/**
 * importOptions is the preview's `options` part: the preset or the
 * mapping (never both), and only the options the user set, so the
 * preset's and the account's defaults apply otherwise. A column typed as
 * digits is sent as the 1-based column number (the only form without a
 * header), anything else as header text.
 */
export function importOptions(f: ImportForm): Options {
  const o: Options = { accountId: f.accountId };
  if (f.source === 'preset') {
    // No preset chosen: the preview detects it from the file's header.
    if (f.presetId) o.presetId = f.presetId;
  } else {
    const columns: Record<string, string | number> = {};
    for (const [field, raw] of Object.entries(f.columns)) {
      const v = raw.trim();
      if (!v) continue;
      columns[field] = /^[1-9]\d{0,3}$/.test(v) ? Number(v) : v;
    }
    o.mapping = { ...cleanRules(f.rules), hasHeader: f.hasHeader, delimiter: f.delimiter === '\t' ? 'tab' : f.delimiter || ',', columns };
    o.rowShape = f.rowShape;
  }
  if (f.timezone.trim()) o.timezone = f.timezone.trim();
  if (f.dateFormat) o.dateFormat = f.dateFormat;
  if (f.numberFormat) o.numberFormat = f.numberFormat;
  const split = Object.entries(f.accountMap).filter(([, id]) => id);
  if (split.length) o.accountMap = Object.fromEntries(split.map(([a, id]) => [a, id === skipAccount ? '' : id]));
  if (f.tradeDate) o.tradeDate = f.tradeDate;
  if (f.symbol.trim()) o.symbol = f.symbol.trim().toUpperCase();
  return o;
}

/** skipAccount is the form's choice to leave a file account's rows out. */
export const skipAccount = 'skip';

/** previewForm is the multipart body: options first (the server reads the file as it arrives), then the file. */
export function previewForm(options: Options, file: Blob, fileName: string): FormData {
  const form = new FormData();
  form.append('options', new Blob([JSON.stringify(options)], { type: 'application/json' }), 'options.json');
  form.append('file', file, fileName);
  return form;
}

/** headerNames reads the first line of a CSV for the mapping's suggestions (quotes removed; not a full parser). */
export function headerNames(firstLine: string, delimiter: string): string[] {
  const d = delimiter === 'tab' || delimiter === '\\t' ? '\t' : delimiter || ',';
  return firstLine
    .replace(/^\uFEFF/, '')
    .split(d)
    .map((h) => h.trim().replace(/^"(.*)"$/, '$1').trim())
    .filter(Boolean);
}

/** cleanRules drops the rules left empty. */
function cleanRules(r: MappingRules): MappingRules {
  const out: MappingRules = {};
  if (r.filters?.length) out.filters = r.filters;
  if (r.skipNonTrades) out.skipNonTrades = true;
  if (r.sides && Object.keys(r.sides).length) out.sides = r.sides;
  if (r.openClose && Object.keys(r.openClose).length) out.openClose = r.openClose;
  if (r.defaultAssetType) out.defaultAssetType = r.defaultAssetType;
  if (r.multiplier?.trim() && (r.defaultAssetType === 'future' || r.defaultAssetType === 'future_option')) out.multiplier = r.multiplier.trim();
  return out;
}

/** loadSaved fills the form from a saved mapping (the account and file stay). */
export function loadSaved(f: ImportForm, m: SavedMapping): ImportForm {
  const { columns, hasHeader, delimiter, ...rules } = m.mapping;
  return {
    ...f,
    source: 'mapping',
    rowShape: m.rowShape ?? 'execution',
    hasHeader: hasHeader ?? true,
    delimiter: delimiter === 'tab' || delimiter === '\\t' ? '\t' : delimiter || ',',
    columns: Object.fromEntries(Object.entries(columns).map(([k, v]) => [k, String(v)])),
    timezone: m.timezone ?? '',
    dateFormat: m.dateFormat ?? '',
    numberFormat: m.numberFormat ?? '',
    tradeDate: '',
    symbol: '',
    rules,
  };
}

/** savedBody is the body that saves the form's mapping under a name. */
export function savedBody(f: ImportForm, name: string) {
  const o = importOptions({ ...f, source: 'mapping' });
  return {
    name: name.trim(),
    mapping: o.mapping as Mapping,
    rowShape: o.rowShape,
    ...(o.timezone ? { timezone: o.timezone } : {}),
    ...(o.dateFormat ? { dateFormat: o.dateFormat } : {}),
    ...(o.numberFormat ? { numberFormat: o.numberFormat } : {}),
  };
}

/** The words for a mapping's fields whose API names do not read as words. */
const fieldWords: Record<string, string> = {
  assetType: `asset type (${importedAssetTypes.map((t) => assetTypeName[t].toLowerCase()).join(', ')})`,
  right: 'call or put',
  side: 'buy or sell',
  openClose: 'open or close',
  pnl: 'P&L',
  orderId: 'order number',
  expiry: 'option expiry',
  strike: 'option strike',
  swap: 'swap or financing (negative a charge)',
  funding: 'funding (positive paid)',
  charge: 'fee (positive paid, negative a rebate)',
  profit: 'P&L in the account currency',
  quote: 'quote currency',
  feeAsset: 'fee coin',
  settle: 'settlement coin',
  type: 'record type',
};

/** fieldText is a mapping field in words: "entryPrice" reads "entry price". */
export function fieldText(field: string): string {
  return fieldWords[field] ?? field.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}
