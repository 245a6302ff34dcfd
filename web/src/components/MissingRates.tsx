// The exchange rates a figure lacks, each named with a link that opens the
// rate form prefilled (the dashboard's totals, the fee roll-up, the tax report).
import { Link } from 'react-router';

/** rateLink opens the exchange-rate form prefilled with a missing "BASE/QUOTE" pair and, when given, the day it is needed from. */
export function rateLink(pair: string, date?: string): string {
  const [base = '', quote = ''] = pair.split('/');
  const day = date ? `&date=${encodeURIComponent(date)}` : '';
  return `/exchange-rates?base=${encodeURIComponent(base)}&quote=${encodeURIComponent(quote)}${day}`;
}

/** MissingRates names each exchange rate a total in the display currency needs, each a link to enter it. */
export function MissingRates({ pairs, currency, subject }: { pairs: string[]; currency: string | null; subject: string }) {
  if (pairs.length === 0) return null;
  return (
    <div className="note note-warn" role="status">
      No {subject} in {currency ?? 'your display currency'} yet: {pairs.length === 1 ? 'a rate is' : 'rates are'} missing, so each currency is shown on its own. To show it, add{' '}
      {pairs.length === 1 ? 'the exchange rate' : 'exchange rates'} for{' '}
      {pairs.map((p, i) => (
        <span key={p}>
          {i > 0 && ', '}
          <Link to={rateLink(p)}>{p}</Link>
        </span>
      ))}{' '}
      on the exchange rates screen.
    </div>
  );
}
