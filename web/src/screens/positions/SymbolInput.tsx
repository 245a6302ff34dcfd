import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { client, unwrap } from '../../api/client';
import { useDebounced } from '../../hooks';

interface Props {
  value: string;
  onChange: (symbol: string) => void;
  error?: string | undefined;
  label?: string;
  hint?: string | undefined;
}

/** SymbolInput is a combobox suggesting tickers from GET /api/symbols/search as the user types. */
export function SymbolInput({ value, onChange, error, label = 'Symbol', hint }: Props) {
  const id = useId();
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  // The list closes a moment after the field loses focus; a form that goes
  // away meanwhile takes the timer with it.
  const closing = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(closing.current), []);
  const q = useDebounced(value.trim(), 200);
  const search = useQuery({
    queryKey: ['symbols', q],
    queryFn: async () => (await unwrap(client.GET('/api/symbols/search', { params: { query: { q } } }))).items,
    enabled: open && q.length > 0 && q.length <= 50,
    staleTime: 5 * 60_000,
  });
  const items = open ? (search.data ?? []) : [];
  const choose = (ticker: string) => {
    onChange(ticker);
    setOpen(false);
    setActive(-1);
  };
  const onKey = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'ArrowDown' && items.length) {
      e.preventDefault();
      setOpen(true);
      setActive((a) => (a + 1) % items.length);
    } else if (e.key === 'ArrowUp' && items.length) {
      e.preventDefault();
      setActive((a) => (a <= 0 ? items.length - 1 : a - 1));
    } else if (e.key === 'Enter' && active >= 0 && items[active]) {
      e.preventDefault();
      choose(items[active].ticker);
    } else if (e.key === 'Escape') {
      setOpen(false);
    }
  };
  const listId = `${id}-list`;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        role="combobox"
        aria-autocomplete="list"
        aria-expanded={items.length > 0}
        aria-controls={listId}
        aria-activedescendant={active >= 0 ? `${listId}-${active}` : undefined}
        aria-invalid={error ? true : undefined}
        aria-describedby={hint ? `${id}-hint` : undefined}
        autoComplete="off"
        spellCheck={false}
        maxLength={32}
        value={value}
        onChange={(e) => {
          onChange(e.target.value.toUpperCase());
          setOpen(true);
          setActive(-1);
        }}
        onKeyDown={onKey}
        onBlur={() => {
          closing.current = setTimeout(() => setOpen(false), 150);
        }}
      />
      <ul id={listId} role="listbox" className="suggestions" hidden={items.length === 0} aria-label="Symbol suggestions">
        {items.map((s, i) => (
          <li
            key={`${s.ticker}-${s.cik}`}
            id={`${listId}-${i}`}
            role="option"
            aria-selected={i === active}
            onMouseDown={(e) => {
              e.preventDefault();
              choose(s.ticker);
            }}
          >
            <strong>{s.ticker}</strong> <span className="muted">{s.name}</span> {s.exchange && <span className="chip">{s.exchange}</span>}
          </li>
        ))}
      </ul>
      {hint && (
        <small id={`${id}-hint`} className="hint">
          {hint}
        </small>
      )}
      {error && (
        <small className="field-error" role="alert">
          {error}
        </small>
      )}
    </div>
  );
}
