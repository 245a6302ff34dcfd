import { describe, expect, it } from 'vitest';
import { render, screen, within } from '@testing-library/react';
import type { Schemas } from '../../api/client';
import { ExcursionFigures, ExitAnalysis } from './Excursions';

const buckets = (counts: number[]) => {
  const bounds = ['-3', '-2', '-1', '0', '1', '2', '3'];
  return counts.map((trades, i) => ({ from: i > 0 ? bounds[i - 1]! : null, to: i < 7 ? bounds[i]! : null, trades }));
};
// The figures of the API's hand-worked journal (functions/performance/excursions_test.go).
const excursions: Schemas['PerformanceBlock']['excursions'] = {
  mae: {
    trades: 4,
    averageMoney: '-23.7500',
    percentiles: { p10: '-70.0000', p25: '-70.0000', p50: '-10.0000', p75: '-10.0000', p90: '-5.0000' },
    rTrades: 3,
    averageR: '-0.6233',
    rDistribution: buckets([0, 0, 1, 2, 0, 0, 0, 0]),
  },
  mfe: {
    trades: 4,
    averageMoney: '47.0000',
    percentiles: { p10: '3.0000', p25: '3.0000', p50: '20.0000', p75: '80.0000', p90: '85.0000' },
    rTrades: 3,
    averageR: '2.0100',
    rDistribution: buckets([0, 0, 0, 0, 1, 1, 0, 1]),
  },
};
const none = { trades: 0, averageMoney: null, percentiles: { p10: null, p25: null, p50: null, p75: null, p90: null }, rTrades: 0, averageR: null, rDistribution: buckets([0, 0, 0, 0, 0, 0, 0, 0]) };

describe('ExcursionFigures', () => {
  it('sets the MAE beside the MFE: average, median, percentiles and R', () => {
    render(<ExcursionFigures data={excursions} currency="USD" />);
    const row = (name: string) => within(screen.getByRole('rowheader', { name }).closest('tr')!);
    expect(row('Average').getAllByRole('cell').map((c) => c.textContent)).toEqual(['-$23.75', '$47.00']);
    expect(row('Median').getAllByRole('cell').map((c) => c.textContent)).toEqual(['-$10.00', '$20.00']);
    expect(row('Middle half (25th to 75th percentile)').getAllByRole('cell').map((c) => c.textContent)).toEqual(['-$70.00 to -$10.00', '$3.00 to $80.00']);
    expect(row('Average R').getAllByRole('cell').map((c) => c.textContent)).toEqual(['-0.62R', '2.01R']);
    expect(screen.getByRole('region', { name: 'MAE in R' })).toHaveTextContent('3 of 4 trades');
    expect(screen.getByRole('region', { name: 'MFE in R' })).toBeInTheDocument();
  });

  it('says how a trade gets an excursion when none has one', () => {
    render(<ExcursionFigures data={{ mae: none, mfe: none }} currency="USD" />);
    expect(screen.getAllByTitle(/type it on the position’s review, or upload price bars/).length).toBeGreaterThan(0);
    expect(screen.queryByRole('region', { name: 'MAE in R' })).toBeNull();
  });
});

describe('ExitAnalysis', () => {
  it('says how much of the MFE was kept and what the target and the stop would have made', () => {
    render(
      <ExitAnalysis
        currency="USD"
        data={{
          mfeKept: { trades: 4, grossPnl: '97.0000', mfe: '188.0000', share: '51.60' },
          holdToTarget: { trades: 1, grossPnl: '75.0000', atLevel: '75.0000' },
          holdToStop: { trades: 1, grossPnl: '-40.0000', atLevel: '-60.0000' },
        }}
      />,
    );
    const card = screen.getByRole('region', { name: 'Exit analysis' });
    expect(card).toHaveTextContent('The exits kept 51.60% of the MFE: $97.00 of $188.00 over 4 trades.');
    expect(card).toHaveTextContent('1 trade reached the target first: it made $75.00; exiting at the target would have made $75.00.');
    expect(card).toHaveTextContent('1 trade reached the stop first: it made -$40.00; exiting at the stop would have made -$60.00.');
  });

  it('says what is missing when no trade was measured', () => {
    const empty = { trades: 0, grossPnl: '0.0000', atLevel: '0.0000' };
    render(<ExitAnalysis currency="USD" data={{ mfeKept: { trades: 0, grossPnl: '0.0000', mfe: '0.0000', share: null }, holdToTarget: empty, holdToStop: empty }} />);
    expect(screen.getByText(/No trade has an MFE yet/)).toBeInTheDocument();
    expect(screen.getByText('No trade’s price bars reached the target before the stop.')).toBeInTheDocument();
  });
});
