// Fill times: a datetime-local input holds the browser's wall-clock time;
// the API wants RFC 3339 with a zone.

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** toLocalInput renders an instant for a datetime-local input (browser zone, to the second). */
export function toLocalInput(iso: string | Date): string {
  const d = typeof iso === 'string' ? new Date(iso) : iso;
  if (Number.isNaN(d.getTime())) return '';
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** fromLocalInput turns a datetime-local value into RFC 3339 (UTC); null when empty or invalid. */
export function fromLocalInput(value: string): string | null {
  if (!value) return null;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}
