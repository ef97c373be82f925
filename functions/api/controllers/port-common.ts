/** What the port controllers share: the request validator, sort columns and paged listing. */
import { Invalid } from '#common/errors';
import { newUuid } from '#common/ids';
import type { PortFilter } from '#db/ports';
import type { Dict } from '#objects/fields';
import { Port } from '#objects/port';
import { argUuid } from '../args';
import type { ApiContext } from '../context';
import { type Paging, type SortSpec, columns, sortField } from '../resource-list';
import { type ApiVersion, atLeast } from '../microversion';
import { PORT_NAME_VERSION, argMac, localLinkSchema, normalizeLocalLink, portSchema, smartNicLinkSchema } from '../schemas/port';
import { parseBoolean, validateSchema } from '../validation';

export const PORT_SORT: SortSpec = {
  invalid: ['extra', 'internal_info', 'local_link_connection'],
  columns: columns(['uuid', 'address', 'pxe_enabled', 'physical_network', 'is_smartnic', 'created_at', 'updated_at'], {
    node_id: 'node_uuid',
    portgroup_id: 'portgroup_uuid',
  }),
};

/**
 * From 1.88 ports sort by name and by the columns of Ironic master (a column newer than the
 * request's version is 406 before this is asked); below, those are unknown sort keys, as they were.
 */
const PORT_SORT_1_88: SortSpec = {
  ...PORT_SORT,
  columns: { ...PORT_SORT.columns, ...columns(['name', 'description', 'vendor', 'category', 'available_for_dynamic_portgroup']) },
};

export function portSort(version: ApiVersion): SortSpec {
  return atLeast(version, PORT_NAME_VERSION) ? PORT_SORT_1_88 : PORT_SORT;
}

/** PORT_VALIDATOR: the schema, then each field's own check, in Ironic's order, values normalized in place. */
export function validatePort(name: string, body: unknown, version: ApiVersion): Record<string, unknown> {
  validateSchema(name, portSchema(version), body);
  const data = body as Record<string, unknown>;
  if ('address' in data) data.address = argMac('address', data.address);
  if ('node_uuid' in data) data.node_uuid = argUuid('node_uuid', data.node_uuid);
  if ('is_smartnic' in data) data.is_smartnic = parseBoolean('is_smartnic', data.is_smartnic);
  if ('local_link_connection' in data && data.local_link_connection !== null) {
    validateSchema('local_link_connection', localLinkSchema(version), data.local_link_connection);
    normalizeLocalLink(data.local_link_connection as Record<string, unknown>);
  }
  if ('portgroup_uuid' in data) data.portgroup_uuid = argUuid('portgroup_uuid', data.portgroup_uuid) ?? null;
  if ('pxe_enabled' in data) data.pxe_enabled = parseBoolean('pxe_enabled', data.pxe_enabled);
  if ('uuid' in data) data.uuid = argUuid('uuid', data.uuid) ?? null;
  if ('available_for_dynamic_portgroup' in data) {
    data.available_for_dynamic_portgroup = parseBoolean('available_for_dynamic_portgroup', data.available_for_dynamic_portgroup);
  }
  return data;
}

/** The conductor's checks of a new port that need no lookup (create_port): a smart NIC's link, a set physical network. */
export function checkNewPort(data: Record<string, unknown>, version: ApiVersion): void {
  // Ironic checks a smart NIC's link only when one is given (its schema validator passes None).
  if (data.is_smartnic && data.local_link_connection !== null && data.local_link_connection !== undefined) {
    try {
      validateSchema('local_link_connection', smartNicLinkSchema(version), data.local_link_connection);
    } catch {
      throw new Invalid('Smart NIC port must have port_id and hostname in local_link_connection');
    }
  }
  if (data.physical_network === '') throw new Invalid('A non-empty value is required when setting physical_network');
}

/**
 * The new port a validated body describes, on `nodeUuid` (and in `portgroupUuid`): the API's
 * create and the bulk import (`ironless fleet import`) build their ports here.
 */
export function newPort(data: Record<string, unknown>, nodeUuid: string, portgroupUuid?: string): Port {
  const values: Dict = { uuid: (data.uuid as string | null | undefined) || newUuid(), node_uuid: nodeUuid };
  for (const field of [
    'address',
    'extra',
    'local_link_connection',
    'pxe_enabled',
    'physical_network',
    'is_smartnic',
    'name',
    'description',
    'vendor',
    'category',
    'available_for_dynamic_portgroup',
  ]) {
    if (data[field] !== undefined && data[field] !== null) values[field] = data[field];
  }
  if (portgroupUuid !== undefined) values.portgroup_uuid = portgroupUuid;
  values.created_at = new Date().toISOString();
  return new Port(values);
}

/**
 * One page of ports in the requested order, starting after `marker`; `keep` filters in memory
 * (the shard filter), reading further pages until this one is full or nothing remains.
 */
export async function listPortPage(
  ctx: ApiContext,
  filter: PortFilter,
  paging: Paging,
  marker: string | undefined,
  keep?: (port: Port) => boolean,
  sort: SortSpec = PORT_SORT,
): Promise<Port[]> {
  const out: Port[] = [];
  let after = marker;
  for (;;) {
    const page = await ctx.stores.ports.list(filter, {
      limit: paging.limit,
      ...(after ? { marker: after } : {}),
      sortKey: sortField(paging.sortKey, sort),
      sortDir: paging.sortDir,
    });
    for (const port of page.items) if (keep === undefined || keep(port)) out.push(port);
    if (keep === undefined || out.length >= paging.limit || !page.more || page.items.length === 0) break;
    after = page.items[page.items.length - 1]?.uuid;
  }
  return out.slice(0, paging.limit);
}
