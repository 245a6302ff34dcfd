import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { PnlCalendar } from './Calendar';
import { monthGrid, shiftMonth } from './calendar';

describe('monthGrid', () => {
  it('starts weeks on Monday and pads to whole weeks', () => {
    const cells = monthGrid('2024-05'); // 1 May 2024 was a Wednesday
    expect(cells.slice(0, 3)).toEqual([null, null, { date: '2024-05-01', day: 1 }]);
    expect(cells.length % 7).toBe(0);
    expect(cells.filter(Boolean)).toHaveLength(31);
  });
  it('shifts months across years', () => {
    expect(shiftMonth('2024-01', -1)).toBe('2023-12');
    expect(shiftMonth('2024-12', 1)).toBe('2025-01');
  });
});

describe('PnlCalendar', () => {
  const days = [
    { date: '2024-05-02', trades: 2, wins: 1, losses: 1, netPnl: '-12.5000' },
    { date: '2024-05-03', trades: 1, wins: 1, losses: 0, netPnl: '98.0000' },
  ];
  it('labels every day with its P&L and colours wins and losses', () => {
    render(<PnlCalendar days={days} currency="USD" />);
    expect(screen.getByRole('gridcell', { name: '2024-05-03: $98.00, 1 trades' })).toHaveClass('win');
    expect(screen.getByRole('gridcell', { name: /2024-05-02: -\$12\.50, 2 trades/ })).toHaveClass('loss');
    expect(screen.getByRole('gridcell', { name: '2024-05-04: no trades' })).not.toHaveClass('win');
  });
  it('moves between days with the arrow keys and months with the buttons', async () => {
    const user = userEvent.setup();
    render(<PnlCalendar days={days} currency="USD" />);
    const first = screen.getByRole('gridcell', { name: '2024-05-01: no trades' });
    expect(first).toHaveAttribute('tabindex', '0');
    first.focus();
    await user.keyboard('{ArrowRight}');
    expect(screen.getByRole('gridcell', { name: /2024-05-02/ })).toHaveFocus();
    await user.keyboard('{ArrowDown}');
    expect(screen.getByRole('gridcell', { name: /2024-05-09/ })).toHaveFocus();
    await user.click(screen.getByRole('button', { name: 'Previous month' }));
    expect(screen.getByRole('heading', { name: /April 2024/ })).toBeInTheDocument();
  });
});
