/**
 * The port and portgroup list filters that name nodes rather than ports: the node's shard (ports
 * 1.82, portgroups 1.106) and conductor group (1.99). The nodes come from the node indexes; the
 * ports or portgroups of those nodes are kept as the list is read, page after page.
 */
import type { NodeFilter } from '#db/node-filters';
import type { PortgroupFilter } from '#db/portgroups';
import type { Portgroup } from '#objects/portgroup';
import type { ApiContext } from './context';
import { type Paging, type SortSpec, sortField } from './resource-list';

/** UUIDs of the nodes any of `filters` selects, read from the node indexes 1,000 at a time. */
export async function nodeUuidsWhere(ctx: ApiContext, filters: readonly NodeFilter[]): Promise<Set<string>> {
  const nodes = new Set<string>();
  for (const filter of filters) {
    let marker: string | undefined;
    for (;;) {
      const page = await ctx.nodes.list(filter, { limit: 1000, ...(marker ? { marker } : {}) });
      for (const n of page.nodes) nodes.add(n.uuid);
      if (!page.more || page.nodes.length === 0) break;
      marker = page.nodes[page.nodes.length - 1]?.uuid;
    }
  }
  return nodes;
}

/** The node filters of a shard list or a conductor group list (one filter per group: the index keys one). */
export function nodeFiltersOf(shards: readonly string[] | undefined, groups: readonly string[] | undefined): NodeFilter[] {
  if (shards !== undefined && shards.length > 0) return [{ shards }];
  return (groups ?? []).map((conductorGroup) => ({ conductorGroup }));
}

/** One page of portgroups in the requested order after `marker`; `keep` filters while reading further pages. */
export async function listPortgroupPage(
  ctx: ApiContext,
  filter: PortgroupFilter,
  paging: Paging,
  marker: string | undefined,
  sort: SortSpec,
  keep?: (pg: Portgroup) => boolean,
): Promise<{ items: Portgroup[] }> {
  const out: Portgroup[] = [];
  let after = marker;
  for (;;) {
    const page = await ctx.stores.portgroups.list(filter, {
      limit: paging.limit,
      ...(after ? { marker: after } : {}),
      sortKey: sortField(paging.sortKey, sort),
      sortDir: paging.sortDir,
    });
    for (const pg of page.items) if (keep === undefined || keep(pg)) out.push(pg);
    if (keep === undefined || out.length >= paging.limit || !page.more || page.items.length === 0) break;
    after = page.items[page.items.length - 1]?.uuid;
  }
  return { items: out.slice(0, paging.limit) };
}
