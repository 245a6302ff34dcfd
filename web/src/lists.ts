// Choices offered in pickers (the server validates; these only help typing).
import { normalizeDecimal } from './numbers';

/** timeZones is every IANA zone the browser knows (the server checks its own list). */
export function timeZones(): string[] {
  try {
    return Intl.supportedValuesOf('timeZone');
  } catch {
    return ['UTC', 'America/New_York', 'America/Chicago', 'Europe/London', 'Europe/Berlin', 'Asia/Tokyo'];
  }
}

/** currencies is every ISO 4217 code the browser knows. */
export function currencies(): string[] {
  try {
    return Intl.supportedValuesOf('currency');
  } catch {
    return ['USD', 'EUR', 'GBP', 'JPY', 'CHF', 'CAD', 'AUD'];
  }
}

/**
 * emptyToUndefined drops "" so an optional decimal is sent as absent, and
 * writes what was typed ("25,000") in the API's form ("25000").
 */
export function emptyToUndefined(value: string): string | undefined {
  const v = normalizeDecimal(value);
  return v === '' ? undefined : v;
}
