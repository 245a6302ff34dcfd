import { describe, expect, it } from 'vitest';
import { fieldText, headerNames, importOptions, initialImportForm, loadSaved, previewForm, savedBody } from './logic';

describe('importOptions', () => {
  it('sends a preset and only the options set', () => {
    expect(importOptions({ ...initialImportForm, accountId: 'a1', presetId: 'ibkr-flex-trades' })).toEqual({ accountId: 'a1', presetId: 'ibkr-flex-trades' });
    expect(importOptions({ ...initialImportForm, accountId: 'a1', presetId: 'p', timezone: ' Europe/Berlin ', dateFormat: 'eu', numberFormat: 'eu' })).toEqual({
      accountId: 'a1',
      presetId: 'p',
      timezone: 'Europe/Berlin',
      dateFormat: 'eu',
      numberFormat: 'eu',
    });
  });
  it('sends no preset when none is chosen: the preview detects it', () => {
    expect(importOptions({ ...initialImportForm, accountId: 'a1', presetId: '' })).toEqual({ accountId: 'a1' });
  });
  it("sends where each of the file's accounts goes, once one is chosen", () => {
    expect(importOptions({ ...initialImportForm, accountId: 'a1', accountMap: { 'APEX-22': 'a2', Sim101: 'skip', EVAL: '' } })).toEqual({
      accountId: 'a1',
      accountMap: { 'APEX-22': 'a2', Sim101: '' },
    });
    expect(importOptions({ ...initialImportForm, accountId: 'a1', accountMap: { Sim101: '' } })).toEqual({ accountId: 'a1' });
  });
  it('sends the instrument of a file that names none', () => {
    expect(importOptions({ ...initialImportForm, accountId: 'a1', presetId: 'tradestation-trades', symbol: ' /esh25 ' })).toEqual({
      accountId: 'a1',
      presetId: 'tradestation-trades',
      symbol: '/ESH25',
    });
  });
  it('sends the trading day of a file without dates', () => {
    expect(importOptions({ ...initialImportForm, accountId: 'a1', presetId: 'das-trader', tradeDate: '2025-03-04' })).toEqual({
      accountId: 'a1',
      presetId: 'das-trader',
      tradeDate: '2025-03-04',
    });
  });
  it('sends a mapping with header names and column numbers, never a preset', () => {
    const o = importOptions({
      ...initialImportForm,
      accountId: 'a1',
      source: 'mapping',
      presetId: 'ignored',
      rowShape: 'round-trip',
      hasHeader: false,
      delimiter: '\t',
      columns: { symbol: '2', entryPrice: ' Entry ', exitPrice: '' },
    });
    expect(o).toEqual({ accountId: 'a1', rowShape: 'round-trip', mapping: { hasHeader: false, delimiter: 'tab', columns: { symbol: 2, entryPrice: 'Entry' } } });
  });
});

describe('previewForm', () => {
  it('puts the options part before the file part', async () => {
    const form = previewForm({ accountId: 'a1', presetId: 'p' }, new Blob(['a,b\n1,2\n'], { type: 'text/csv' }), 'trades.csv');
    expect([...form.keys()]).toEqual(['options', 'file']);
    const options = form.get('options') as File;
    expect(options.type).toBe('application/json');
    expect(JSON.parse(await options.text())).toEqual({ accountId: 'a1', presetId: 'p' });
    expect((form.get('file') as File).name).toBe('trades.csv');
  });
});

describe('headerNames', () => {
  it('reads the header line for suggestions', () => {
    expect(headerNames('\uFEFF"Trade Date", Symbol ,Qty', ',')).toEqual(['Trade Date', 'Symbol', 'Qty']);
    expect(headerNames('a\tb', 'tab')).toEqual(['a', 'b']);
  });
});

describe('saved mappings', () => {
  const saved = {
    id: 'm1',
    name: 'Futures',
    mapping: { hasHeader: true, delimiter: 'tab', columns: { date: 'Filled At', quantity: 4 }, defaultAssetType: 'future' as const, multiplier: '10', skipNonTrades: true },
    rowShape: 'execution' as const,
    dateFormat: 'us' as const,
    createdAt: '2025-01-01T00:00:00Z',
    updatedAt: '2025-01-01T00:00:00Z',
  };
  it('loads into the form and sends back what was saved', () => {
    const f = loadSaved({ ...initialImportForm, accountId: 'a1' }, saved);
    expect(f.source).toBe('mapping');
    expect(f.delimiter).toBe('\t');
    expect(f.columns).toEqual({ date: 'Filled At', quantity: '4' });
    expect(importOptions(f)).toEqual({
      accountId: 'a1',
      rowShape: 'execution',
      dateFormat: 'us',
      mapping: { hasHeader: true, delimiter: 'tab', columns: { date: 'Filled At', quantity: 4 }, defaultAssetType: 'future', multiplier: '10', skipNonTrades: true },
    });
    expect(savedBody(f, ' Futures ')).toEqual({ name: 'Futures', mapping: saved.mapping, rowShape: 'execution', dateFormat: 'us' });
  });
  it('drops empty rules and a multiplier without futures', () => {
    const o = importOptions({ ...initialImportForm, source: 'mapping', columns: { date: 'd' }, rules: { filters: [], multiplier: '5', defaultAssetType: 'stock' } });
    expect(o.mapping).toEqual({ hasHeader: true, delimiter: ',', columns: { date: 'd' }, defaultAssetType: 'stock' });
  });
});

describe('fieldText', () => {
  it('writes a mapping field in words', () => {
    expect(fieldText('entryPrice')).toBe('entry price');
    expect(fieldText('assetType')).toBe('asset type (stock, option, future, futures option, forex, crypto, cfd)');
    expect(fieldText('feeAsset')).toBe('fee coin');
    expect(fieldText('openClose')).toBe('open or close');
    expect(fieldText('date')).toBe('date');
  });
});
