import { describe, expect, it } from 'vitest';
import { sumDecimals } from './decimal';

describe('sumDecimals', () => {
  it('adds exactly at the finest scale given', () => {
    expect(sumDecimals(['0.1000', '0.2000'])).toBe('0.3000');
    expect(sumDecimals(['-12.5000', '98.0000', '0.0001'])).toBe('85.5001');
    expect(sumDecimals(['-1.5', '0.25'])).toBe('-1.25');
    expect(sumDecimals(['90071992547409.9100', '90071992547409.9100'])).toBe('180143985094819.8200');
  });
  it('is 0 for nothing and skips what is not a decimal', () => {
    expect(sumDecimals([])).toBe('0');
    expect(sumDecimals(['1', 'x'])).toBe('1');
  });
});
