/** Formatting for people: times, durations, counts, masked secrets. Pure: no DOM, unit-tested. */

/** "4 s", "3 min 12 s", "2 h 05 min". */
export function duration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
}

/** "12 s ago", "3 min ago", "in 5 s"; '—' without a time. */
export function ago(iso: string | null | undefined, now: number): string {
  if (iso === null || iso === undefined || iso === '') return '—';
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  const delta = now - at;
  return delta >= 0 ? `${duration(delta)} ago` : `in ${duration(-delta)}`;
}

/** A timestamp in the operator's zone, to the second: "2026-11-25 10:00:04". */
export function clock(iso: string | null | undefined): string {
  if (iso === null || iso === undefined || iso === '') return '—';
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())} ${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}`;
}

export function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** Keys whose values are secrets: the API masks them already; the console never shows one anyway. */
const SECRET_KEY = /pass(word|phrase)?|secret|token|private_?key|configdrive|credential/i;
export const MASK = '******';

/** A copy of `value` with every secret-looking key's value replaced by ******. */
export function maskSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(maskSecrets);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([k, v]) => [
      k,
      SECRET_KEY.test(k) && v !== null && v !== '' ? MASK : maskSecrets(v),
    ]),
  );
}

/** A value as short text for a table cell ('—' for nothing; JSON for objects). */
export function show(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
