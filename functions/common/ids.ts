/** Identifier helpers shared by the API and the conductor. */
import { randomUUID } from 'node:crypto';

const UUID_RE = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/** Whether a value looks like a UUID (oslo's is_uuid_like: hex with or without dashes). */
export function isUuidLike(value: string): boolean {
  return UUID_RE.test(value);
}

/**
 * oslo's is_uuid_like, exactly: "urn:" and "uuid:" anywhere, braces at the ends and dashes anywhere
 * are ignored, and what is left must be 32 hexadecimal digits. Ironic decides with it whether an
 * identifier is a UUID or a name.
 */
export function isOsloUuidLike(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const hex = value
    .replace(/urn:/g, '')
    .replace(/uuid:/g, '')
    .replace(/^[{}]+|[{}]+$/g, '')
    .replace(/-/g, '');
  return /^[0-9a-fA-F]{32}$/.test(hex);
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
