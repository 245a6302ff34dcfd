import { describe, expect, it } from 'vitest';
import { fragmentToken, safeNext, takeFragmentToken } from './fragment';

describe('fragmentToken', () => {
  it('reads the token from a fragment', () => {
    expect(fragmentToken('#token=abc-DEF_123')).toBe('abc-DEF_123');
    expect(fragmentToken('token=xyz')).toBe('xyz');
    expect(fragmentToken('#other=1&token=t%2Bv')).toBe('t+v');
  });
  it('is null without a token', () => {
    expect(fragmentToken('')).toBeNull();
    expect(fragmentToken('#')).toBeNull();
    expect(fragmentToken('#token=')).toBeNull();
    expect(fragmentToken('#tokens=abc')).toBeNull();
  });
});

describe('takeFragmentToken', () => {
  it('returns the token and clears the fragment from the address', () => {
    window.history.replaceState(null, '', '/reset-password?x=1#token=secret');
    expect(takeFragmentToken()).toBe('secret');
    expect(window.location.hash).toBe('');
    expect(window.location.pathname + window.location.search).toBe('/reset-password?x=1');
  });
});

describe('safeNext', () => {
  it('keeps local paths and refuses other sites', () => {
    expect(safeNext('/positions?x=1')).toBe('/positions?x=1');
    expect(safeNext('//evil.example')).toBe('/');
    expect(safeNext('/\\evil.example')).toBe('/');
    expect(safeNext('https://evil.example')).toBe('/');
    expect(safeNext(null)).toBe('/');
  });
});
