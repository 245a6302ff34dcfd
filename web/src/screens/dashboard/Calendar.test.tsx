import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { PnlCalendar } from './Calendar';
import { intensity, monthGrid, monthTotal, shiftMonth, weekTotals } from './calendar';

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

describe('calendar totals and intensity', () => {
  const byDate = new Map([
    ['2024-04-29', { netPnl: '10.0000', trades: 1 }], // Monday of the week 1 May falls in
    ['2024-05-02', { netPnl: '-12.5000', trades: 2 }],
    ['2024-05-03', { netPnl: '98.0000', trades: 1 }],
    ['2024-05-31', { netPnl: '0.1000', trades: 1 }],
    ['2024-06-01', { netPnl: '0.2000', trades: 1 }],
  ]);
  it('totals each Monday-to-Sunday row, days of the months either side included', () => {
    const weeks = weekTotals('2024-05', byDate);
    expect(weeks.map((w) => w.monday)).toEqual(['2024-04-29', '2024-05-06', '2024-05-13', '2024-05-20', '2024-05-27']);
    expect(weeks[0]?.total).toEqual({ netPnl: '95.5000', trades: 4 });
    expect(weeks[1]?.total).toBeNull();
    expect(weeks[4]?.total).toEqual({ netPnl: '0.3000', trades: 2 });
  });
  it('totals the month on its own days only, exactly', () => {
    expect(monthTotal('2024-05', byDate)).toEqual({ netPnl: '85.6000', trades: 4 });
    expect(monthTotal('2024-07', byDate)).toBeNull();
  });
  it('grades a day by its size against the largest day, win or loss alike', () => {
    expect(intensity('98.0000', 98)).toBe(4);
    expect(intensity('-98.0000', 98)).toBe(4);
    expect(intensity('-12.5000', 98)).toBe(1);
    expect(intensity('50.0000', 98)).toBe(3);
    expect(intensity('0.0000', 98)).toBe(0);
    expect(intensity(undefined, 98)).toBe(0);
  });
  it('shows week and month totals, grades colours, and opens a day with closes', async () => {
    const user = userEvent.setup();
    const opened: string[] = [];
    const days = [...byDate].map(([date, d]) => ({ date, wins: 0, losses: 0, ...d }));
    render(<PnlCalendar days={days.filter((d) => d.date.startsWith('2024-05'))} currency="USD" onOpenDay={(d) => opened.push(d)} />);
    expect(screen.getByTestId('month-total')).toHaveTextContent('Month total: $85.60 over 4 trades');
    expect(screen.getByRole('gridcell', { name: 'Week of 2024-04-29: $85.50, 3 trades' })).toBeInTheDocument();
    const big = screen.getByRole('gridcell', { name: '2024-05-03: $98.00, 1 trades, open the day in the journal' });
    expect(big).toHaveClass('win', 'lvl-4');
    expect(screen.getByRole('gridcell', { name: /^2024-05-02/ })).toHaveClass('loss', 'lvl-1');
    await user.click(big);
    await user.click(screen.getByRole('gridcell', { name: '2024-05-04: no trades' }));
    expect(opened).toEqual(['2024-05-03']);
    screen.getByRole('gridcell', { name: /^2024-05-02/ }).focus();
    await user.keyboard('{Enter}');
    expect(opened).toEqual(['2024-05-03', '2024-05-02']);
  });
});
