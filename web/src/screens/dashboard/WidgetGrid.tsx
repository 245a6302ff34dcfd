// The dashboard's widgets laid out as the user arranged them (layout.ts),
// and the controls that arrange them: move, resize, remove, add, reset.
// Every change is saved at once (PUT /api/users/me/dashboard-layout), so
// the same dashboard is on every device.
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { client, errorText, unwrap, type Schemas } from '../../api/client';
import { ConfirmButton, SelectField } from '../../components/ui';
import { added, hiddenWidgets, layoutLabels, moved, removed, resized, sizeNames, widgetTitles, type Widget, type WidgetId, type WidgetSize } from './layout';

const layoutKey = ['dashboard-layout'] as const;

/** useDashboardLayout is the user's layout and the mutations that save and reset it. */
export function useDashboardLayout() {
  const qc = useQueryClient();
  const layout = useQuery({ queryKey: layoutKey, queryFn: () => unwrap(client.GET('/api/users/me/dashboard-layout')), staleTime: 60_000 });
  const save = useMutation({
    mutationFn: (widgets: Widget[]) => unwrap(client.PUT('/api/users/me/dashboard-layout', { body: { widgets } })),
    // One save at a time, in the order made: two quick moves arrive in order.
    scope: { id: 'dashboard-layout' },
    // The change shows at once (the answer is the layout sent); a refused one is put back.
    onMutate: (widgets) => {
      const before = qc.getQueryData<Schemas['DashboardLayout']>(layoutKey);
      qc.setQueryData(layoutKey, { widgets, custom: true });
      return { before };
    },
    onError: (_err, _widgets, ctx) => qc.setQueryData(layoutKey, ctx?.before),
  });
  const reset = useMutation({
    mutationFn: () => unwrap(client.DELETE('/api/users/me/dashboard-layout')),
    scope: { id: 'dashboard-layout' },
    onSuccess: (data) => qc.setQueryData(layoutKey, data),
  });
  return { layout, save, reset };
}

const sizes = Object.keys(sizeNames) as WidgetSize[];

/**
 * WidgetGrid shows each widget of the layout at its width; render gives a
 * widget's content (null: nothing to show now, such as a chart without
 * closed positions). While editing, each widget carries its controls and
 * an empty one a placeholder, so it can still be moved or removed.
 */
export function WidgetGrid({ widgets, editing, onChange, render, label }: { widgets: Widget[]; editing: boolean; onChange: (next: Widget[]) => void; render: (id: WidgetId) => ReactNode; label: string }) {
  // After a move the same button keeps the focus, wherever its widget went.
  const refocus = useRef<string | null>(null);
  const grid = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!refocus.current) return;
    grid.current?.querySelector<HTMLElement>(`[data-focus-key="${refocus.current}"]`)?.focus();
    refocus.current = null;
  });
  // The layout as last changed here: a second quick change (Enter pressed
  // twice) builds on the first before the first has rendered.
  const latest = useRef(widgets);
  useEffect(() => {
    latest.current = widgets;
  }, [widgets]);
  const change = (make: (current: Widget[]) => Widget[]) => {
    latest.current = make(latest.current);
    onChange(latest.current);
  };
  const move = (id: WidgetId, delta: number, key: string) => {
    refocus.current = key;
    change((current) => moved(current, current.findIndex((w) => w.id === id), delta));
  };
  return (
    <div ref={grid} className={`widget-grid${editing ? ' editing' : ''}`} aria-label={label} role="region">
      {widgets.map((w, i) => {
        const content = render(w.id);
        if (content === null && !editing) return null;
        const title = widgetTitles[w.id];
        return (
          <div key={w.id} className={`widget w-${w.size}`} data-widget={w.id}>
            {content ?? (
              <div className="card widget-empty">
                <strong>{title}</strong>
                <p className="muted">Shows once there is something to show for this filter.</p>
              </div>
            )}
            {editing && (
              <div className="widget-controls" role="group" aria-label={`Arrange ${title}`}>
                <button type="button" className="ghost" data-focus-key={`${w.id}:up`} disabled={i === 0} aria-label={`Move ${title} earlier`} onClick={() => move(w.id, -1, `${w.id}:up`)}>
                  ↑
                </button>
                <button type="button" className="ghost" data-focus-key={`${w.id}:down`} disabled={i === widgets.length - 1} aria-label={`Move ${title} later`} onClick={() => move(w.id, 1, `${w.id}:down`)}>
                  ↓
                </button>
                <select aria-label={`Width of ${title}`} value={w.size} onChange={(e) => change((current) => resized(current, w.id, e.target.value as WidgetSize))}>
                  {sizes.map((s) => (
                    <option key={s} value={s}>
                      {sizeNames[s]}
                    </option>
                  ))}
                </select>
                <button type="button" className="ghost" aria-label={`Remove ${title}`} onClick={() => change((current) => removed(current, w.id))}>
                  Remove
                </button>
              </div>
            )}
          </div>
        );
      })}
    </div>
  );
}

/**
 * LayoutEditor is the bar above the widgets while the dashboard is being
 * arranged: add a widget, reset, done. A refused change is told with the
 * widgets' names (sent is the layout that was refused).
 */
export function LayoutEditor({ widgets, custom, onChange, onReset, resetting, error, sent, onDone }: {
  widgets: Widget[];
  custom: boolean;
  onChange: (next: Widget[]) => void;
  onReset: () => void;
  resetting: boolean;
  error: unknown;
  sent?: Widget[] | undefined;
  onDone: () => void;
}) {
  const hidden = hiddenWidgets(widgets);
  const [choice, setChoice] = useState<WidgetId | ''>('');
  const chosen = choice && hidden.includes(choice) ? choice : (hidden[0] ?? '');
  return (
    <section className="card layout-editor" aria-label="Customize dashboard">
      <p>Move, resize or remove the widgets below; each change is saved for every device you sign in on.</p>
      <div className="row">
        {hidden.length > 0 ? (
          <>
            <SelectField label="Add a widget" value={chosen} onChange={(e) => setChoice(e.target.value as WidgetId)}>
              {hidden.map((id) => (
                <option key={id} value={id}>
                  {widgetTitles[id]}
                </option>
              ))}
            </SelectField>
            <button type="button" disabled={!chosen} onClick={() => chosen && onChange(added(widgets, chosen, 'half'))}>
              Add widget
            </button>
          </>
        ) : (
          <p className="muted">Every widget is on the dashboard.</p>
        )}
        {custom && (
          <ConfirmButton question="The dashboard goes back to every widget in the default order and widths." onConfirm={onReset} busy={resetting}>
            Reset to default
          </ConfirmButton>
        )}
        <button type="button" onClick={onDone}>
          Done
        </button>
      </div>
      {error ? (
        <p className="note note-error" role="alert">
          Not saved: {errorText(error, { labels: layoutLabels(sent) })}
        </p>
      ) : null}
    </section>
  );
}
