import { describe, expect, it } from 'vitest';
import { added, hiddenWidgets, moved, removed, resized, widgetTitles, type Widget } from './layout';

const three: Widget[] = [
  { id: 'net-pnl', size: 'quarter' },
  { id: 'calendar', size: 'full' },
  { id: 'by-tag', size: 'half' },
];

describe('dashboard layout edits', () => {
  it('moves a widget up and down, never out of the list', () => {
    expect(moved(three, 2, -1).map((w) => w.id)).toEqual(['net-pnl', 'by-tag', 'calendar']);
    expect(moved(three, 0, 1).map((w) => w.id)).toEqual(['calendar', 'net-pnl', 'by-tag']);
    expect(moved(three, 0, -1)).toEqual(three);
    expect(moved(three, 2, 1)).toEqual(three);
  });

  it('resizes, removes and adds one widget without touching the others', () => {
    expect(resized(three, 'calendar', 'half')[1]).toEqual({ id: 'calendar', size: 'half' });
    expect(resized(three, 'calendar', 'half')[0]).toBe(three[0]);
    expect(removed(three, 'net-pnl').map((w) => w.id)).toEqual(['calendar', 'by-tag']);
    expect(added(three, 'sqn', 'third').at(-1)).toEqual({ id: 'sqn', size: 'third' });
    expect(added(three, 'calendar', 'quarter')).toBe(three);
  });

  it('offers every widget the layout does not show, in the catalog order', () => {
    const hidden = hiddenWidgets(three);
    expect(hidden).toHaveLength(Object.keys(widgetTitles).length - 3);
    expect(hidden).not.toContain('calendar');
    expect(hidden[0]).toBe('total-balance');
  });
});
