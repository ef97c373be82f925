/** Identifier helpers shared by the API and the conductor. */
import { randomUUID } from 'node:crypto';

const UUID_RE = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/** Whether a value looks like a UUID (oslo's is_uuid_like: hex with or without dashes). */
export function isUuidLike(value: string): boolean {
  return UUID_RE.test(value);
}

/** The canonical, lower-case, dashed form of a UUID-like value. */
export function canonicalUuid(value: string): string {
  const hex = value.replace(/-/g, '').toLowerCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function newUuid(): string {
  return randomUUID();
}

/** Ironic's request id form: "req-<uuid>". */
export function newRequestId(): string {
  return `req-${randomUUID()}`;
}
