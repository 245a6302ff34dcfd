import { describe, expect, it, vi } from 'vitest';
import { counted, dayKey, formatAmount, formatDateTime, formatDay, formatMoneyShort, setDisplayZone, formatDecimal, formatMoney, formatPercent, minorUnits, pnlClass, signOf } from './format';

describe('minorUnits', () => {
  it('knows each currency minor units', () => {
    expect(minorUnits('USD')).toBe(2);
    expect(minorUnits('JPY')).toBe(0);
    expect(minorUnits('KWD')).toBe(3);
  });
});

describe('formatMoney', () => {
  it('rounds to the currency minor units for display only', () => {
    expect(formatMoney('1250.5000', 'USD')).toMatch(/^\$1,250\.50$/);
    expect(formatMoney('1250.5000', 'JPY')).toMatch(/1,251$/);
    expect(formatMoney('-3.1250', 'USD')).toMatch(/-\$3\.13|\(\$3\.13\)|−\$3\.13/);
    expect(formatMoney('0.1235', 'KWD')).toMatch(/0\.124/);
  });
  it('formats beyond float precision exactly', () => {
    // 2^53 + 1 is not representable as a double; a string keeps it.
    expect(formatMoney('9007199254740993.0000', 'USD')).toContain('9,007,199,254,740,993.00');
  });
  it('shows a dash for null and non-decimals', () => {
    expect(formatMoney(null, 'USD')).toBe('—');
    expect(formatMoney('abc', 'USD')).toBe('—');
  });
});

describe('formatAmount', () => {
  it('signs an amount and writes its currency code after it, in the currency minor units', () => {
    expect(formatAmount('100000.0000', 'JPY')).toBe('+100,000 JPY');
    expect(formatAmount('662.2517', 'USD')).toBe('+662.25 USD');
    expect(formatAmount('-12.5000', 'EUR')).toMatch(/^[-−]12\.50 EUR$/);
    expect(formatAmount('0.0000', 'USD')).toBe('0.00 USD');
  });
  it('keeps up to 8 places of a code Intl does not know (a crypto asset)', () => {
    expect(formatAmount('0.00123400', 'USDT')).toBe('+0.001234 USDT');
    expect(formatAmount('25.5', 'USDT')).toBe('+25.50 USDT');
  });
  it('shows a dash for null', () => {
    expect(formatAmount(null, 'USD')).toBe('—');
  });
});

describe('decimals', () => {
  it('formats fixed places and percents', () => {
    expect(formatDecimal('1.5', 2)).toBe('1.50');
    expect(formatDecimal('2.3456', 2)).toBe('2.35');
    expect(formatPercent('55.00')).toBe('55.00%');
    expect(formatPercent(null)).toBe('—');
  });
  it('classifies signs without floats', () => {
    expect(signOf('-0.0000')).toBe('zero');
    expect(signOf('0')).toBe('zero');
    expect(signOf('-0.0001')).toBe('negative');
    expect(signOf('12.5')).toBe('positive');
    expect(signOf(null)).toBe('none');
    expect(pnlClass('-1')).toBe('pnl-neg');
    expect(pnlClass('1')).toBe('pnl-pos');
    expect(pnlClass('0')).toBe('');
  });
  it('shows a calendar day without shifting it', () => {
    expect(formatDay('2024-01-19')).toMatch(/19/);
    expect(formatDay('bad')).toBe('bad');
  });
});

describe('minorToDecimal', () => {
  it('places the decimal point by the minor units', async () => {
    const { minorToDecimal } = await import('./format');
    expect(minorToDecimal(500, 2)).toBe('5.00');
    expect(minorToDecimal(5, 2)).toBe('0.05');
    expect(minorToDecimal(1234, 0)).toBe('1234');
    expect(minorToDecimal(1234, 3)).toBe('1.234');
    expect(minorToDecimal(-250, 2)).toBe('-2.50');
    expect(formatMoney(minorToDecimal(2500, minorUnits('USD')), 'USD')).toBe('$25.00');
  });
});

describe('formatDateTime', () => {
  it('names the zone a moment is shown in', () => {
    expect(formatDateTime('2026-11-02T15:00:00Z', 'America/New_York', 'en-US')).toBe('Nov 2, 2026, 10:00 AM EST');
    expect(formatDateTime('2026-07-02T14:00:00Z', 'Europe/London', 'en-GB')).toMatch(/^2 Jul 2026, 15:00 (BST|GMT\+1)$/);
    expect(formatDateTime('2026-11-02T15:00:00Z', 'Not/AZone', 'en-US')).toMatch(/^Nov 2, 2026, \d+:00 [AP]M \S+$/);
    expect(formatDateTime(null)).toBe('—');
    // Without a zone of its own, the user's reporting zone once known.
    setDisplayZone('Asia/Tokyo');
    try {
      expect(formatDateTime('2026-11-02T15:00:00Z', undefined, 'en-US')).toBe('Nov 3, 2026, 12:00 AM GMT+9');
      expect(formatDateTime('2026-11-02T15:00:00Z', 'America/New_York', 'en-US')).toBe('Nov 2, 2026, 10:00 AM EST');
    } finally {
      setDisplayZone(undefined);
    }
  });
});

describe('formatMoneyShort', () => {
  it('writes an amount in a few characters, for a phone', () => {
    expect(formatMoneyShort('1234.5600', 'USD')).toMatch(/^\$1\.2K$/);
    expect(formatMoneyShort('-350.0000', 'USD')).toMatch(/^-\$350$/);
    expect(formatMoneyShort(null, 'USD')).toBe('—');
  });
});

describe('counted', () => {
  it('agrees the noun with the count', () => {
    expect(counted(1, 'fill')).toBe('1 fill');
    expect(counted(0, 'row')).toBe('0 rows');
    expect(counted(4, 'fill')).toBe('4 fills');
  });
});

describe('dayKey', () => {
  it("keys an instant by its day in the zone, the browser's for an unknown zone, one formatter a zone", () => {
    expect(dayKey('2026-11-02T03:30:00Z', 'America/New_York')).toBe('2026-11-01');
    expect(dayKey('2026-11-02T03:30:00Z', 'Asia/Tokyo')).toBe('2026-11-02');
    const made = vi.spyOn(Intl, 'DateTimeFormat');
    for (let i = 0; i < 100; i++) dayKey(`2026-11-02T0${i % 10}:00:00Z`, 'Asia/Tokyo');
    expect(made).not.toHaveBeenCalled();
    made.mockRestore();
    expect(dayKey('2026-11-02T12:00:00Z', 'Mars/Olympus')).toMatch(/^2026-11-0[23]$/);
  });
});
