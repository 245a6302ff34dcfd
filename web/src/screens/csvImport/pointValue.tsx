// The import's futures problem: a file has no multiplier column, so a
// contract whose root has no built-in point value cannot be imported.
import { Link } from 'react-router';
import type { Schemas } from '../../api/client';

export const unknownPointValue = 'UNKNOWN_POINT_VALUE';

/** UnknownPointValueNote says what to do when the preview's errors include UNKNOWN_POINT_VALUE; nothing otherwise. */
export function UnknownPointValueNote({ errors }: { errors: Schemas['CsvImportProblem'][] }) {
  const rows = errors.filter((e) => e.code === unknownPointValue).map((e) => e.row);
  if (rows.length === 0) return null;
  return (
    <p className="note note-warn" role="note">
      Futures without a built-in point value (rows {rows.slice(0, 10).join(', ')}
      {rows.length > 10 ? '…' : ''}): the file cannot say what one point of their price is worth, so they cannot be imported. Leave their rows out
      of the file and record them with <Link to="/positions/new">New position</Link> (asset type Future, with the multiplier).
    </p>
  );
}
