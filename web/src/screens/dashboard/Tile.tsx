/**
 * Tile is one figure of the dashboard. A figure that does not exist (null)
 * shows "—" and, in words under it, why (no losing trade for a profit factor).
 */
export function Tile({ label, value, className = '', note, why }: { label: string; value: string | null; className?: string; note?: string | undefined; why?: string }) {
  const text = value === null ? why : note;
  return (
    <div className="tile">
      <div className="label">{label}</div>
      <div className={`value ${className}`}>{value ?? '—'}</div>
      {text && <div className="tile-note muted">{text}</div>}
    </div>
  );
}
