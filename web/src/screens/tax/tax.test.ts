import { describe, expect, it } from 'vitest';
import { formatDay, formatMoney } from '../../format';
import { accountNames, dayList, latestFinishedYear, lotRuleText, matchRuleText, missingSentence, taxYearLabel, washText } from './tax';
import { changedAccounts } from './TaxSettingsForm';
import { daysText } from './TaxReportView';
import { yearChoices } from './TaxPage';

const names = new Map([
  ['a1', 'Swing'],
  ['a2', 'Futures'],
]);

describe('taxYearLabel', () => {
  it('names the UK tax year from 6 April to 5 April', () => {
    expect(taxYearLabel('uk', 2024, 'en-GB')).toBe('2024/25 (6 April 2024 – 5 April 2025)');
    expect(taxYearLabel('uk', 1999, 'en-GB')).toBe('1999/00 (6 April 1999 – 5 April 2000)');
  });
  it('is the calendar year elsewhere', () => {
    expect(taxYearLabel('us', 2024)).toBe('2024');
    expect(taxYearLabel('other', 2024)).toBe('2024');
  });
});

describe('latestFinishedYear', () => {
  it('is last year in the US, and the UK year that ended on 5 April', () => {
    expect(latestFinishedYear('us', '2026-01-02')).toBe(2025);
    expect(latestFinishedYear('uk', '2026-04-05')).toBe(2024);
    expect(latestFinishedYear('uk', '2026-04-06')).toBe(2025);
  });
  it('offers the year in progress first, and a year asked for outside the list', () => {
    const years = yearChoices('us', '2026-11-29', 1990);
    expect(years[0]).toBe(2026);
    expect(years).toContain(2025);
    expect(years[years.length - 1]).toBe(1990);
  });
});

describe('missingSentence', () => {
  it('names a missing rate by its pair and days, and what to do', () => {
    const text = missingSentence({ kind: 'rate', pair: 'EUR/USD', days: ['2024-03-01', '2024-03-04'], message: 'no EUR/USD exchange rate' }, names);
    expect(text).toBe(`No EUR/USD exchange rate on or before ${formatDay('2024-03-01')} and ${formatDay('2024-03-04')}: the amounts of those days count as 0 until you add the rate on the exchange rates screen.`);
  });
  it('names a contract without a year-end price by its account, not its id', () => {
    const text = missingSentence({ kind: 'mark', instrument: 'ESZ4', account: 'a2', date: '2024-12-31', quantity: '2', message: 'no year-end mark for ESZ4 (2 open in account a2 …)' }, names);
    expect(text).toContain('ESZ4 (2 open in Futures on');
    expect(text).toContain('enter its settlement price');
    expect(text).not.toContain('a2');
  });
  it('names an unmatched sale', () => {
    const text = missingSentence({ kind: 'unmatched', instrument: 'VOD', account: 'a1', date: '2024-05-05', quantity: '1000', message: '' }, names);
    expect(text).toMatch(/^1,000 VOD sold on .* in Swing has no purchase to match yet/);
  });
});

describe('dayList', () => {
  it('lists up to three days in words, then counts the rest', () => {
    expect(dayList(['2024-03-01'])).toBe(formatDay('2024-03-01'));
    expect(dayList(['2024-03-01', '2024-03-02', '2024-03-03', '2024-03-04', '2024-03-05'])).toMatch(/ and 2 more days$/);
  });
});

describe('lot words', () => {
  it('gives a US lot its term and box, a UK lot its rules', () => {
    expect(lotRuleText({ term: 'short', box: 'A', rule: 'fifo' }, 'us')).toBe('Short-term, box A');
    expect(lotRuleText({ term: 'long', box: 'F', rule: 'fifo' }, 'us')).toBe('Long-term, box F');
    expect(lotRuleText({ term: '1256', rule: 'year-end mark', markToMarket: true }, 'us')).toBe('Section 1256 (60/40), year-end price');
    expect(lotRuleText({ rule: 'same day, 30 days, section 104' }, 'uk')).toBe('Same day, then Within 30 days, then Section 104 pool');
    expect(lotRuleText({ rule: 'fifo' }, 'other')).toBe('First in, first out');
    expect(matchRuleText('later acquisition')).toBe('Later purchase');
  });
  it('says where a wash sale’s loss went', () => {
    const text = washText({ adjustment: '250.00', washedTo: [{ fillId: 'f3', account: 'a1', date: '2024-03-15', quantity: '100', amount: '250.00' }] }, 'USD');
    expect(text).toBe(`${formatMoney('250.00', 'USD')} of the loss disallowed, added to the basis of the 100 bought on ${formatDay('2024-03-15')}`);
  });
  it('names the accounts of a lot, several for a UK day', () => {
    expect(accountNames('a1,a2', names)).toBe('Swing, Futures');
    expect(accountNames('zz', names)).toBe('an account outside this report');
  });
  it('says how far a replacement was from the sale', () => {
    expect(daysText(14)).toBe('14 days after');
    expect(daysText(-1)).toBe('1 day before');
    expect(daysText(0)).toBe('the same day');
  });
});

describe('changedAccounts', () => {
  it('sends only the accounts that changed, "same as mine" as null', () => {
    const settings = {
      jurisdiction: 'us' as const,
      accounts: [
        { accountId: 'a1', name: 'Swing', currency: 'USD', jurisdiction: null, basisReporting: 'reported' as const },
        { accountId: 'a2', name: 'ISA', currency: 'GBP', jurisdiction: 'uk' as const, basisReporting: 'reported' as const },
      ],
    };
    expect(
      changedAccounts(settings, {
        a1: { jurisdiction: '', basisReporting: 'none' },
        a2: { jurisdiction: '', basisReporting: 'reported' },
      }),
    ).toEqual([
      { accountId: 'a1', jurisdiction: null, basisReporting: 'none' },
      { accountId: 'a2', jurisdiction: null, basisReporting: 'reported' },
    ]);
  });
});
