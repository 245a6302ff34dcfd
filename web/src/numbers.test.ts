import { describe, expect, it } from 'vitest';
import { formatExample, normalizeDecimal } from './numbers';

describe('normalizeDecimal', () => {
  it.each([
    ['25,000', 'en-US', '25000'],
    ['25 000', 'en-US', '25000'],
    ['25\u202f000,5', 'fr-FR', '25000.5'],
    ['1,234,567.89', 'en-US', '1234567.89'],
    ['1.234.567,89', 'de-DE', '1234567.89'],
    // A plain decimal is the API's own form (forms are filled with it): read as written.
    ['25.000', 'de-DE', '25.000'],
    ['25.000.000', 'de-DE', '25000000'],
    ['25,000', 'de-DE', '25.000'],
    ['25,000', 'fr-FR', '25.000'],
    ['1,5', 'en-US', '1.5'],
    ['1.5', 'de-DE', '1.5'],
    ["1'000.25", 'de-CH', '1000.25'],
    ['  -1,250.00 ', 'en-US', '-1250.00'],
    ['−3,5', 'de-DE', '-3.5'],
    ['+12', 'en-US', '12'],
    ['.5', 'en-US', '0.5'],
    ['123.45', 'de-DE', '123.45'],
    ['', 'en-US', ''],
  ])('%s in %s is %s', (typed, locale, want) => {
    expect(normalizeDecimal(typed, locale)).toBe(want);
  });

  it.each(['abc', '1,23,4', '12..5', '1.2.3,4,5', '$25'])('leaves %s for the server to refuse', (typed) => {
    expect(normalizeDecimal(typed, 'en-US')).toBe(typed);
  });
});

describe('formatExample', () => {
  it('writes a number as the person types it', () => {
    expect(formatExample('1234.56', 'en-US')).toBe('1,234.56');
    expect(formatExample('1234.56', 'de-DE')).toBe('1.234,56');
    expect(formatExample('not a number', 'en-US')).toBe('not a number');
  });
});
