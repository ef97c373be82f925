/**
 * An allocation as the API shows it (Ironic's allocation `convert_with_links`): the stored fields,
 * empty lists and dicts instead of nulls, timestamps in Python's isoformat, the node's UUID and
 * the self/bookmark links. `owner` appears from 1.60 on; `fields` keeps only the named ones
 * (and the links).
 */
import { InvalidParameterValue } from '#common/errors';
import type { Allocation } from '#objects/allocation';
import { type ApiVersion, atLeast } from '../microversion';
import { selfAndBookmark } from './links';
import { isoTime } from './time';

/** The version that added `owner` to allocations. */
export const ALLOCATION_OWNER_VERSION = 60;

export interface AllocationViewOptions {
  readonly baseUrl: string;
  readonly version: ApiVersion;
  readonly fields?: readonly string[] | undefined;
}

/** Every field of the full view, before version masking (Ironic checks `fields` against these). */
function fullView(allocation: Allocation, baseUrl: string): Record<string, unknown> {
  return {
    uuid: allocation.uuid,
    created_at: isoTime(allocation.created_at),
    updated_at: isoTime(allocation.updated_at),
    candidate_nodes: allocation.candidate_nodes ?? [],
    extra: allocation.extra ?? {},
    last_error: allocation.last_error,
    name: allocation.name,
    owner: allocation.owner,
    resource_class: allocation.resource_class,
    state: allocation.state,
    traits: allocation.traits ?? [],
    links: selfAndBookmark(baseUrl, 'allocations', allocation.uuid),
    node_uuid: allocation.node_uuid,
  };
}

/** Refuse fields no allocation has, with Ironic's message. */
export function checkAllocationFields(fields: readonly string[] | undefined, allocation: Allocation): void {
  if (fields === undefined) return;
  const known = Object.keys(fullView(allocation, ''));
  const invalid = [...new Set(fields)].filter((f) => !known.includes(f));
  if (invalid.length > 0) throw new InvalidParameterValue(`Field(s) "${invalid.join(', ')}" are not valid`);
}

export function allocationView(allocation: Allocation, options: AllocationViewOptions): Record<string, unknown> {
  const view = fullView(allocation, options.baseUrl);
  if (!atLeast(options.version, ALLOCATION_OWNER_VERSION)) delete view.owner;
  const fields = options.fields;
  if (fields !== undefined) for (const key of Object.keys(view)) if (key !== 'links' && !fields.includes(key)) delete view[key];
  return view;
}
