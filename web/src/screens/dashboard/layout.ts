// The dashboard's layout (GET/PUT /api/users/me/dashboard-layout): which
// widgets it shows, in which order, how wide. The server keeps it per user
// and holds the catalog and the default; these are the edits the
// "Customize dashboard" controls make, each returning a new list.
import type { Schemas } from '../../api/client';

export type WidgetId = Schemas['DashboardWidgetId'];
export type WidgetSize = Schemas['DashboardWidgetSize'];
export type Widget = Schemas['DashboardWidget'];

/** widgetTitles names every widget, in the order the "Add a widget" list offers them. */
export const widgetTitles: Record<WidgetId, string> = {
  'total-balance': 'Total balance',
  'net-pnl': 'Net P&L',
  'win-rate': 'Win rate',
  'profit-factor': 'Profit factor',
  expectancy: 'Expectancy',
  'average-r': 'Average R',
  sqn: 'SQN',
  trades: 'Trades',
  'average-win': 'Average win',
  'average-loss': 'Average loss',
  'largest-win': 'Largest win',
  'largest-loss': 'Largest loss',
  'win-streak': 'Longest win streak',
  'loss-streak': 'Longest loss streak',
  'max-drawdown': 'Max drawdown',
  fees: 'Fees',
  calendar: 'P&L calendar',
  'equity-curve': 'Equity curve',
  drawdown: 'Drawdown chart',
  'r-distribution': 'R-multiple distribution',
  'winners-losers': 'Winners against losers',
  excursions: 'Excursions (MAE and MFE)',
  'exit-analysis': 'Exit analysis',
  'by-weekday': 'By weekday of entry',
  'by-hour': 'By hour of entry',
  'by-hold-time': 'By hold time',
  'by-side': 'By side',
  'by-asset-type': 'By asset type',
  'by-underlying': 'By underlying',
  'by-tag': 'By tag',
  'by-playbook': 'By playbook',
  'by-strategy': 'By strategy',
  'by-month': 'By month',
  'by-week': 'By week',
  'by-year': 'By year',
  'by-criterion': 'By playbook criterion',
  'rule-compliance': 'Rule compliance',
  'fee-rollup': 'Fees by broker and month',
};

export const sizeNames: Record<WidgetSize, string> = { quarter: 'A quarter', third: 'A third', half: 'Half', full: 'Full width' };

/** moved is the layout with the widget at index moved by delta places (kept inside the list). */
export function moved(widgets: Widget[], index: number, delta: number): Widget[] {
  const to = Math.max(0, Math.min(widgets.length - 1, index + delta));
  const next = [...widgets];
  const [w] = next.splice(index, 1);
  if (w) next.splice(to, 0, w);
  return next;
}

/** resized is the layout with one widget's width changed. */
export function resized(widgets: Widget[], id: WidgetId, size: WidgetSize): Widget[] {
  return widgets.map((w) => (w.id === id ? { ...w, size } : w));
}

/** removed is the layout without one widget. */
export function removed(widgets: Widget[], id: WidgetId): Widget[] {
  return widgets.filter((w) => w.id !== id);
}

/** added is the layout with a widget appended, at size; a widget shown already stays where it is. */
export function added(widgets: Widget[], id: WidgetId, size: WidgetSize): Widget[] {
  return widgets.some((w) => w.id === id) ? widgets : [...widgets, { id, size }];
}

/** hiddenWidgets are the widgets the layout does not show, in the catalog's order. */
export function hiddenWidgets(widgets: Widget[]): WidgetId[] {
  const shown = new Set(widgets.map((w) => w.id));
  return (Object.keys(widgetTitles) as WidgetId[]).filter((id) => !shown.has(id));
}

/** layoutLabels names a sent layout's fields for an error message: widgets[2].size is "the width of By tag". */
export function layoutLabels(widgets: Widget[] | undefined): Record<string, string> {
  const labels: Record<string, string> = {};
  (widgets ?? []).forEach((w, i) => {
    const title = widgetTitles[w.id] ?? 'a widget';
    labels[`widgets[${i}].size`] = `the width of ${title}`;
    labels[`widgets[${i}].id`] = title;
  });
  return labels;
}
