import { describe, expect, it } from 'vitest';
import { monthRange, ruleText } from './rules';
import { paramsOf } from './RulesPage';
import { rangeOf } from './ComplianceBreakdown';

describe('rules in words', () => {
  it('says what each rule asks', () => {
    expect(ruleText({ type: 'maxTradesPerDay', params: { count: 1 } }, 'USD')).toBe('At most 1 trade a day');
    expect(ruleText({ type: 'maxTradesPerDay', params: { count: 3 } }, 'USD')).toBe('At most 3 trades a day');
    expect(ruleText({ type: 'maxDailyLoss', params: { amount: '500' } }, 'EUR')).toBe('Lose at most 500 EUR a day');
    expect(ruleText({ type: 'maxRiskPerTrade', params: { amount: '100', percent: '1' } }, 'USD')).toBe('Risk at most 100 USD and 1% of the balance per trade');
    expect(ruleText({ type: 'noTradingDays', params: { weekdays: [5, 7] } }, '')).toBe('No trading on Friday, Sunday');
    expect(ruleText({ type: 'allowedHours', params: { from: '09:30', to: '16:00' } }, '')).toBe('Enter trades only from 09:30 until 16:00');
    expect(ruleText({ type: 'maxConsecutiveLosses', params: { count: 2 } }, '')).toBe('Stop for the day after 2 losses in a row');
    expect(ruleText({ type: 'maxWeeklyLoss', params: { amount: '1500' } }, 'USD')).toBe('Lose at most 1500 USD a week');
    expect(ruleText({ type: 'maxOpenExposure', params: { notional: '50000', risk: '800' } }, 'USD')).toBe('Hold at most 50000 USD in open trades and 800 USD at risk at once');
    expect(ruleText({ type: 'requiredFields', params: { fields: ['target', 'tag', 'screenshot'] } }, '')).toBe('Record on every trade: target, at least one tag, a screenshot');
    expect(ruleText({ type: 'allowedMarkets', params: { assetTypes: ['stock', 'option'], symbols: ['AAPL', 'SPY'] } }, '')).toBe('Trade only stocks, options in AAPL, SPY');
    expect(ruleText({ type: 'allowedMarkets', params: { symbols: ['ES'] } }, '')).toBe('Trade only ES');
    expect(ruleText({ type: 'allowedMarkets', params: { assetTypes: ['future_option', 'cfd'] } }, '')).toBe('Trade only futures options, CFDs');
    expect(ruleText({ type: 'allowedDirection', params: { side: 'short' } }, '')).toBe('Trade short only');
    expect(ruleText({ type: 'cooldownAfterLoss', params: { minutes: 15 } }, '')).toBe('Wait 15 minutes after a losing trade before the next entry');
  });
});

const base = { accountId: '', tagId: '', weight: 'important' as const, enabled: true, lists: {} };

describe('paramsOf', () => {
  it('keeps only the type\'s fields, numbers for counts, blanks left out', () => {
    expect(paramsOf({ type: 'maxTradesPerDay', ...base, values: { count: ' 3 ', amount: '5' }, weekdays: [1] })).toEqual({ count: 3 });
    expect(paramsOf({ type: 'maxRiskPerTrade', ...base, values: { amount: '', percent: '1.5' }, weekdays: [] })).toEqual({ percent: '1.5' });
    expect(paramsOf({ type: 'noTradingDays', ...base, values: {}, weekdays: [6, 7] })).toEqual({ weekdays: [6, 7] });
    // A count that is no whole number goes as typed, for the server to explain.
    expect(paramsOf({ type: 'maxTradesPerDay', ...base, values: { count: '1.5' }, weekdays: [] })).toEqual({ count: '1.5' });
    // Lists ticked, symbols split on commas and spaces, minutes a number.
    expect(paramsOf({ type: 'requiredFields', ...base, values: {}, weekdays: [], lists: { fields: ['notes', 'tag'], assetTypes: ['stock'] } })).toEqual({ fields: ['notes', 'tag'] });
    expect(paramsOf({ type: 'allowedMarkets', ...base, values: { symbols: ' aapl, SPY  QQQ,' }, weekdays: [], lists: { assetTypes: [] } })).toEqual({ symbols: ['aapl', 'SPY', 'QQQ'] });
    expect(paramsOf({ type: 'cooldownAfterLoss', ...base, values: { minutes: '15', side: 'long' }, weekdays: [] })).toEqual({ minutes: 15 });
    expect(paramsOf({ type: 'maxOpenExposure', ...base, values: { risk: '500', amount: '9' }, weekdays: [] })).toEqual({ risk: '500' });
  });
});

describe('ranges', () => {
  it('gives a month\'s first and last day', () => {
    expect(monthRange('2024-02')).toEqual({ from: '2024-02-01', to: '2024-02-29' });
    expect(monthRange('2026-12')).toEqual({ from: '2026-12-01', to: '2026-12-31' });
  });
  it('fits the dashboard\'s dates into one year', () => {
    expect(rangeOf('2026-03-01', '2026-03-31')).toEqual({ from: '2026-03-01', to: '2026-03-31' });
    expect(rangeOf('2020-01-01', '2026-03-31')).toEqual({ from: '2025-03-31', to: '2026-03-31' });
    expect(rangeOf(undefined, '2026-03-31')).toEqual({ from: '2025-03-31', to: '2026-03-31' });
  });
});
