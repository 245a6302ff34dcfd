import { describe, expect, it } from 'vitest';
import { multiplyDecimals, sumDecimals } from './decimal';

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

describe('multiplyDecimals', () => {
  it('multiplies exactly, without trailing zeros', () => {
    expect(multiplyDecimals('1.5', '100000')).toBe('150000');
    expect(multiplyDecimals('0.37', '0.01')).toBe('0.0037');
    expect(multiplyDecimals('2', '0.1')).toBe('0.2');
    expect(multiplyDecimals('-1.25', '4')).toBe('-5');
    expect(multiplyDecimals('0', '-3')).toBe('0');
    expect(multiplyDecimals('123456789012345678.9', '1000')).toBe('123456789012345678900');
  });
  it('is null for what is not a plain decimal', () => {
    expect(multiplyDecimals('1,5', '10')).toBeNull();
    expect(multiplyDecimals('', '10')).toBeNull();
  });
});
