/**
 * Timestamps as Ironic shows them: Python's isoformat() of a UTC datetime,
 * `2026-01-02T03:04:05.123000+00:00` (no fraction when it is zero).
 */
export function isoTime(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return value;
  const ms = date.getUTCMilliseconds();
  const base = date.toISOString().slice(0, 19);
  return ms === 0 ? `${base}+00:00` : `${base}.${String(ms).padStart(3, '0')}000+00:00`;
}
