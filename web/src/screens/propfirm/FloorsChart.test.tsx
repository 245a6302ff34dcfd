import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/react';
import type { Status } from './propfirm';
import { closest, FloorsChart, floorsLines, linePath } from './FloorsChart';

type Day = Status['days'][number];

function day(date: string, endBalance: string, drawdownFloor: string | null, dailyLossFloor: string | null): Day {
  return { date, startBalance: endBalance, endBalance, pnl: '0', low: endBalance, drawdownFloor, dailyLossFloor, opened: 1, closed: 1 };
}

// The combine's walk-through: +800, +600, -500, -900, -1,450; the
// end-of-day floor trails to 49,400 and the fifth close breaks it.
const days = [
  day('2026-04-06', '50800', '48000', '49000'),
  day('2026-04-07', '51400', '48800', '49800'),
  day('2026-04-08', '50900', '49400', '50400'),
  day('2026-04-09', '50000', '49400', '49900'),
  day('2026-04-10', '48550', '49400', '49000'),
];

describe('FloorsChart', () => {
  it('draws the balance and both floors, and says in words the day the balance came nearest the drawdown floor', () => {
    render(<FloorsChart days={days} currency="USD" />);
    const chart = screen.getByRole('img', { name: 'Balance against the floors' });
    expect(chart).toHaveAccessibleDescription(
      "Balance at each day's close against the floors, 5 trading days from Apr 6, 2026 to Apr 10, 2026, from $48,000.00 to $51,400.00. The close of Apr 10, 2026 was $850.00 below the drawdown floor.",
    );
    // 48,000 at the bottom (y 192), 51,400 at the top (y 8), five days across:
    // 50,800 is 8 + 600 x 184 / 3,400 = 40.5.
    expect(screen.getByTestId('floors-drawdown')).toHaveAttribute('d', 'M8.0 192.0 L154.0 148.7 L300.0 116.2 L446.0 116.2 L592.0 116.2');
    expect(screen.getByTestId('floors-balance').getAttribute('d')).toMatch(/^M8\.0 40\.5 L154\.0 8\.0 /);
    expect(screen.getAllByRole('listitem').map((li) => li.textContent)).toEqual(['Balance at the close', 'Drawdown floor', 'Daily loss floor']);
  });

  it('leaves out a floor the plan does not have, and breaks a line on a day without a value', () => {
    const noDaily = days.map((d) => ({ ...d, dailyLossFloor: null }));
    expect(floorsLines(noDaily).map((l) => l.name)).toEqual(['Balance at the close', 'Drawdown floor']);
    expect(linePath([1, null, 3], 1, 3)).toBe('M8.0 192.0 M592.0 8.0');
    expect(closest(noDaily.slice(0, 3))).toEqual({ date: '2026-04-08', room: 1500 });
    expect(closest(noDaily.map((d) => ({ ...d, drawdownFloor: null })))).toBeNull();
  });

  it('draws nothing for fewer than two days (the table has them)', () => {
    const { container } = render(<FloorsChart days={days.slice(0, 1)} currency="USD" />);
    expect(container).toBeEmptyDOMElement();
  });
});
