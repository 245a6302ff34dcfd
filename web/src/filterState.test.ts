import { describe, expect, it } from 'vitest';
import { apiQuery, carriedSearch, closedOnDay, defaultPositionSort, emptyFilters, parseFilters, positionSort, positionSortParam, withFilter, writeFilters, writePositionSort } from './filterState';

describe('the filter in the address', () => {
  it('survives a round trip through the query string, whatever the list form', () => {
    const params = new URLSearchParams('accountId=a1&accountId=a2,a3&symbol=aapl, es &tagId=t1&excludeTagId=t2,t3&playbookId=b1&strategy=iron-condor,none&result=win&result=breakeven&side=short&assetType=option&weekday=1,5&hour=9&hour=15&from=2024-01-01&to=2024-03-31&status=closed&propFirm=true&phase=funded,evaluation&page=2');
    const f = parseFilters(params);
    expect(f).toEqual({
      accountId: ['a1', 'a2', 'a3'],
      symbol: ['AAPL', 'ES'],
      tagId: ['t1'],
      excludeTagId: ['t2', 't3'],
      playbookId: ['b1'],
      strategy: ['iron-condor', 'none'],
      result: ['win', 'breakeven'],
      assetType: ['option'],
      weekday: ['1', '5'],
      hour: ['9', '15'],
      phase: ['funded', 'evaluation'],
      propFirm: 'true',
      side: 'short',
      status: 'closed',
      from: '2024-01-01',
      to: '2024-03-31',
    });
    const written = writeFilters(f, params);
    // Other parameters stay; each list is one comma-separated parameter.
    expect(written.get('page')).toBe('2');
    expect(written.getAll('accountId')).toEqual(['a1,a2,a3']);
    expect(parseFilters(written)).toEqual(f);
    expect(writeFilters(parseFilters(written)).toString()).toBe(writeFilters(f).toString());
  });

  it('drops blanks and repeats, and removes a parameter set to nothing', () => {
    const f = parseFilters(new URLSearchParams('tagId=,t1,,t1&side=&from=%20'));
    expect(f.tagId).toEqual(['t1']);
    expect(f.side).toBeUndefined();
    expect(f.from).toBeUndefined();
    const cleared = withFilter(withFilter(f, 'tagId', []), 'side', '');
    expect(writeFilters(cleared).toString()).toBe('');
    expect(cleared).toEqual(emptyFilters());
  });

  it('gives the client arrays and numbers, without the list-only parameters for the statistics', () => {
    const f = parseFilters(new URLSearchParams('weekday=1,7&hour=0&accountId=a&status=open&dateBy=closed&from=2024-05-01'));
    expect(apiQuery(f, 'statistics')).toEqual({ weekday: [1, 7], hour: [0], accountId: ['a'], from: '2024-05-01' });
    expect(apiQuery(f, 'list')).toEqual({ weekday: [1, 7], hour: [0], accountId: ['a'], status: 'open', dateBy: 'closed', from: '2024-05-01' });
    expect(apiQuery(emptyFilters(), 'list')).toEqual({});
    // The result applies to both: the statistics' records and the list's closed positions.
    expect(apiQuery(parseFilters(new URLSearchParams('result=loss,breakeven')), 'statistics')).toEqual({ result: ['loss', 'breakeven'] });
    // Prop-firm accounts: a boolean to the client; the phases a list, in both scopes.
    const prop = parseFilters(new URLSearchParams('propFirm=false&phase=evaluation'));
    expect(apiQuery(prop, 'statistics')).toEqual({ propFirm: false, phase: ['evaluation'] });
    expect(apiQuery(prop, 'list')).toEqual({ propFirm: false, phase: ['evaluation'] });
  });

  it('carries the filter between the dashboard and the positions list, nothing else', () => {
    expect(carriedSearch('?tagId=t1&status=open&dateBy=closed&base=EUR', 'statistics')).toBe('?tagId=t1');
    expect(carriedSearch('?tagId=t1&status=open', 'list')).toBe('?tagId=t1&status=open');
    expect(carriedSearch('?base=EUR', 'list')).toBe('');
  });

  it('lists the positions closed on a calendar day, keeping the rest of the filter', () => {
    const f = closedOnDay(parseFilters(new URLSearchParams('accountId=a&from=2024-01-01&to=2024-12-31')), '2024-05-03');
    expect(writeFilters(f).toString()).toBe('accountId=a&from=2024-05-03&to=2024-05-03&dateBy=closed');
  });
});

describe('positionSort', () => {
  it('reads the API value from the address, the default for none or a stranger', () => {
    expect(positionSort(new URLSearchParams('sort=-netPnl'))).toEqual({ key: 'netPnl', descending: true });
    expect(positionSort(new URLSearchParams('sort=symbol'))).toEqual({ key: 'symbol', descending: false });
    expect(positionSort(new URLSearchParams(''))).toEqual(defaultPositionSort);
    expect(positionSort(new URLSearchParams('sort=-pnl'))).toEqual(defaultPositionSort);
  });
  it('writes an order beside the filters, the default as no parameter', () => {
    const params = new URLSearchParams('symbol=AAPL&sort=symbol');
    expect(writePositionSort({ key: 'rMultiple', descending: true }, params).toString()).toBe('symbol=AAPL&sort=-rMultiple');
    expect(writePositionSort(defaultPositionSort, params).toString()).toBe('symbol=AAPL');
    expect(positionSortParam({ key: 'closedAt', descending: false })).toBe('closedAt');
  });
});
