import { describe, expect, it } from 'vitest';
import { ApiError, errorText } from './client';
import { detailSentence, errorSentences, fieldLabel, readable } from './messages';

const ny = { timeZone: 'America/New_York', locale: 'en-US' };

function validation(details: Array<{ field: string; message: string }>) {
  return new ApiError(400, { error: { code: 'VALIDATION_ERROR', message: `${details[0]?.field} ${details[0]?.message}`, details } });
}

describe('fieldLabel', () => {
  it('names a nested field as the form does', () => {
    expect(fieldLabel('fills[1].quantity').label).toBe('quantity of fill 2');
    expect(fieldLabel('rate.rate').label).toBe('rate');
    expect(fieldLabel('name', { labels: { name: 'account name' } }).label).toBe('account name');
    expect(fieldLabel('contractMonth').label).toBe('contract month');
    expect(fieldLabel('accountId').choose).toBe(true);
  });
});

describe('detailSentence', () => {
  it.each([
    [{ field: 'fills[1].quantity', message: 'must be greater than 0' }, 'The quantity of fill 2 must be more than 0.'],
    [{ field: 'startingBalance', message: 'must be a decimal string like "10000.00"; use "0" for none' }, 'Enter the starting balance as a number, like 1,234.56.'],
    [{ field: 'fills[0].price', message: 'must be a JSON string holding a decimal like "123.45", not a number or other value' }, 'Enter the price of fill 1 as a number, like 1,234.56.'],
    [{ field: 'name', message: 'is required' }, 'Enter the name.'],
    [{ field: 'accountId', message: 'is required' }, 'Choose the account.'],
    [{ field: 'currency', message: 'must be an ISO 4217 currency code such as USD or EUR' }, 'Enter the currency as a three-letter code, such as USD or EUR.'],
    [{ field: 'password', message: 'must be at most 1024 bytes' }, 'The password is too long: shorten it.'],
    [{ field: 'stopLoss', message: 'must differ from entryPrice' }, 'The stop loss must differ from the entry price.'],
    [{ field: 'riskPercent', message: 'must be greater than 0 and at most 100' }, 'The risk percent must be more than 0 and at most 100.'],
    [{ field: 'balance', message: 'must be between -99999999999999.9999 and 99999999999999.9999' }, 'The account balance must be between -99,999,999,999,999.9999 and 99,999,999,999,999.9999.'],
    [{ field: 'name', message: 'is already the name of another of your accounts' }, 'You already have an account with this name: choose another name.'],
    [{ field: 'side', message: 'must be long or short' }, 'Choose the side: long or short.'],
    [{ field: 'tradeDate', message: 'is required: the file has times but no dates (DAS Trader Pro: trade log); give the trading day it is of (YYYY-MM-DD)' }, 'Enter the trading day of the file: the file has times but no dates.'],
    [
      { field: 'accountMap.U1234', message: "is an account in EUR, but the import's account is in USD: send the file's accounts to accounts in USD" },
      "This account is in EUR, the import's account in USD: choose an account in USD.",
    ],
    [{ field: 'accountMap.U1234', message: 'must be one of your accounts' }, 'Choose one of your accounts.'],
    // The forex and CFD calculators.
    [
      { field: 'conversionRate', message: "is required (the value of 1 GBP in USD, since the account currency is neither of the pair's)" },
      "Enter the conversion rate: the value of 1 GBP in USD, since the account currency is neither of the pair's.",
    ],
    [
      { field: 'conversionRate', message: "must be left out: the account currency EUR is the pair's base currency, so the rate is 1/entryPrice" },
      "Leave the conversion rate empty: the account currency EUR is the pair's base currency, so the rate is 1/entry price.",
    ],
    [
      { field: 'pair', message: 'must be a currency pair such as "EUR/USD", "EURUSD", "EUR_USD" or "EUR.USD" (two ISO currency codes, or a metal XAU XAG XPT XPD first)' },
      'Enter the pair as two currency codes, like EUR/USD or EURUSD (a metal first for gold or silver, like XAU/USD).',
    ],
    [{ field: 'accountCurrency', message: 'must be a three-letter ISO 4217 currency code such as USD or EUR' }, 'Enter the account currency as a three-letter code, such as USD or EUR.'],
    [{ field: 'pointValue', message: 'must be greater than 0 and at most 9999999.99' }, 'The point value must be more than 0 and at most 9,999,999.99.'],
    [{ field: 'riskAmount', message: 'must be greater than 0 and at most 99999999.99' }, 'The risk amount must be more than 0 and at most 99,999,999.99.'],
    [{ field: 'conversionRate', message: 'must be greater than 0 and at most 1000000' }, 'The conversion rate must be more than 0 and at most 1,000,000.'],
    [
      { field: 'multiplier', message: 'is required for a future of root XYZ, which has no built-in point value (the amount one point of price moves one contract)' },
      'Enter the point value: futures of root XYZ have no built-in point value (the amount one point of price moves one contract).',
    ],
    // Forex, crypto and CFDs in the position form.
    [
      { field: 'fills[0].rate', message: "applies only to forex, crypto and CFDs (what 1 unit of the quote currency is worth in the account's)" },
      "Leave the rate of fill 1 empty: only forex, crypto and CFDs take one (what 1 unit of the quote currency is worth in the account's).",
    ],
    [{ field: 'fills[1].rate', message: 'must be greater than 0 and at most 1000000000' }, 'The rate of fill 2 must be more than 0 and at most 1,000,000,000.'],
    [{ field: 'fills[0].rate', message: 'must have at most 12 decimal places' }, 'The rate of fill 1 can have at most 12 digits after the decimal point.'],
    [
      { field: 'multiplier', message: 'applies only to futures, futures options, CFDs and crypto contracts (stocks and forex have 1, options 100)' },
      'Leave the point value empty: only futures, futures options, CFDs and crypto contracts take one (stocks and forex have 1, options 100).',
    ],
    [
      { field: 'symbol', message: 'must be a crypto pair such as "BTC/USDT", "BTC-USD", "BTCUSDT" or Kraken\'s "XXBTZUSD"; a perpetual as "BTC/USDT:PERP"' },
      'Enter the symbol as a crypto pair, like BTC/USDT, BTCUSDT or BTC-USD (a perpetual like BTC/USDT:PERP).',
    ],
    // A rule for some asset types only that names one thing keeps its own words.
    [{ field: 'legs[0].strike', message: 'applies only to an option leg' }, 'The strike of leg 1: applies only to an option leg.'],
  ])('%j reads %s', (detail, want) => {
    expect(detailSentence(detail, ny)).toBe(want);
  });

  it('writes times in the user’s zone, without ids or field paths', () => {
    const text = detailSentence(
      {
        field: 'fills[2].filledAt',
        message: 'exit fill 5b0c3f1e-1c2a-4e5f-9a7b-1234567890ab of 50 at 2024-03-04T14:30:00Z: the position was closed at 2024-03-01T20:00:00Z; a later trade belongs to a new position',
      },
      ny,
    );
    expect(text).toBe('This position closed on Mar 1, 2024, 3:00 PM EST: record a later trade as a new position.');
    expect(text).not.toMatch(/UTC|Z\b|fills\[|5b0c/);
  });

  it('uses the user’s number format in examples', () => {
    expect(detailSentence({ field: 'amount', message: 'must be a decimal string like 123.45' }, { locale: 'de-DE' })).toBe(
      'Enter the amount as a number, like 1.234,56.',
    );
  });

  it('falls back to a sentence naming the field, never its path', () => {
    const text = detailSentence({ field: 'fills[0].fees', message: 'must be below targetPrice somehow' }, ny);
    expect(text).toBe('The fees of fill 1: must be below target price somehow.');
  });
});

describe('the position form’s own names', () => {
  const labels = { quoteCurrency: 'currency the CFD is priced in', multiplier: 'value per point' };
  it.each([
    [{ field: 'quoteCurrency', message: 'must be a three-letter ISO 4217 currency code such as USD or EUR' }, 'Enter the currency the CFD is priced in as a three-letter code, such as USD or EUR.'],
    [
      { field: 'quoteCurrency', message: "applies only to CFDs (a pair's quote currency is in its symbol)" },
      "Leave the currency the CFD is priced in empty: only CFDs take one (a pair's quote currency is in its symbol).",
    ],
    [{ field: 'multiplier', message: 'must be greater than 0 and at most 1000000000' }, 'The value per point must be more than 0 and at most 1,000,000,000.'],
  ])('%j reads %s', (detail, want) => {
    expect(detailSentence(detail, { ...ny, labels })).toBe(want);
  });
});

describe('readable', () => {
  it('writes a located problem’s times in the user’s zone', () => {
    expect(readable('the exit (2024-03-04T14:30:00Z) is before the entry (2024-03-05T14:30:00Z)', ny)).toBe(
      'The exit (Mar 4, 2024, 9:30 AM EST) is before the entry (Mar 5, 2024, 9:30 AM EST).',
    );
  });
});

describe('errorSentences', () => {
  it('turns a confirmation conflict into a sentence without the query string', () => {
    const err = new ApiError(409, {
      error: { code: 'CONFLICT', message: 'this account holds 2 positions; deleting it deletes them with their fills, images and ledger: repeat with ?confirm=true' },
    });
    expect(errorSentences(err, ny)).toEqual(['This account holds 2 positions; deleting it deletes them with their fills, images and ledger.']);
  });

  it('says what to do for a code, without byte counts', () => {
    const err = new ApiError(413, { error: { code: 'PAYLOAD_TOO_LARGE', message: 'file is larger than 10485760 bytes' } });
    const [text] = errorSentences(err, ny);
    expect(text).not.toMatch(/bytes|10485760/);
    expect(text).toMatch(/Split it/);
  });

  it('tells a disabled account whom to ask, and a wrong current password what to check', () => {
    const disabled = new ApiError(403, { error: { code: 'ACCOUNT_DISABLED', message: 'this account is disabled; ask the administrator of this instance' } });
    expect(errorSentences(disabled, ny)).toEqual(['This account is disabled. Ask the administrator of this Trade Journal to enable it again.']);
    const wrong = validation([{ field: 'currentPassword', message: 'is not your current password' }]);
    expect(wrong.fieldError('currentPassword', ny)).toBe('This is not your current password: check it and try again.');
    expect(validation([{ field: 'newPassword', message: 'must be at least 8 characters' }]).fieldError('newPassword', ny)).toBe('The new password needs at least 8 characters.');
  });

  it('one sentence per field', () => {
    const err = validation([
      { field: 'fills[0].price', message: 'must be greater than 0' },
      { field: 'symbol', message: 'is required' },
    ]);
    expect(errorText(err, ny)).toBe('The price of fill 1 must be more than 0. Enter the symbol.');
    expect(err.fieldError('fills[0].price', ny)).toBe('The price of fill 1 must be more than 0.');
    expect(err.fieldError('fills', ny)).toBe('The price of fill 1 must be more than 0.');
  });

  it('rate limits, server errors and lost connections read as advice', () => {
    expect(errorText(new ApiError(429, { error: { code: 'RATE_LIMITED', message: 'x' } }))).toMatch(/Wait a moment/);
    expect(errorText(new ApiError(500, { error: { message: 'internal error' } }))).toMatch(/Try again/);
    expect(errorText(new TypeError('Failed to fetch'))).toMatch(/could not be reached/);
  });
});
