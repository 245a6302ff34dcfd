// Exact sums of the API's decimal strings (the calendar's week and month
// totals, balances per currency): BigInt on a common scale, never floats.

const pattern = /^(-?)(\d+)(?:\.(\d+))?$/;

/** sumDecimals adds decimal strings exactly, keeping the most fraction digits any of them has; "0" for none. */
export function sumDecimals(values: readonly string[]): string {
  let scale = 0;
  const parsed: Array<{ neg: boolean; int: string; frac: string }> = [];
  for (const v of values) {
    const m = pattern.exec(v);
    if (!m) continue;
    const frac = m[3] ?? '';
    scale = Math.max(scale, frac.length);
    parsed.push({ neg: m[1] === '-', int: m[2] ?? '0', frac });
  }
  let total = 0n;
  for (const p of parsed) {
    const n = BigInt(p.int + p.frac.padEnd(scale, '0'));
    total += p.neg ? -n : n;
  }
  const neg = total < 0n;
  const digits = (neg ? -total : total).toString().padStart(scale + 1, '0');
  const text = scale > 0 ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits;
  return neg ? `-${text}` : text;
}

/**
 * multiplyDecimals multiplies two decimal strings exactly (lots into units: 1.5 x 100000 = "150000"), without
 * trailing zeros after the point; null when either is not a plain decimal.
 */
export function multiplyDecimals(a: string, b: string): string | null {
  const x = pattern.exec(a);
  const y = pattern.exec(b);
  if (!x || !y) return null;
  const scale = (x[3] ?? '').length + (y[3] ?? '').length;
  const product = BigInt((x[2] ?? '0') + (x[3] ?? '')) * BigInt((y[2] ?? '0') + (y[3] ?? ''));
  const neg = (x[1] === '-') !== (y[1] === '-') && product !== 0n;
  const digits = product.toString().padStart(scale + 1, '0');
  const whole = scale > 0 ? digits.slice(0, -scale) : digits;
  const frac = scale > 0 ? digits.slice(-scale).replace(/0+$/, '') : '';
  return `${neg ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
}
