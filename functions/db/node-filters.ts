/**
 * Node list filters (Ironic's `get_node_list` filters) and how each is answered: by an index
 * partition, by the instance guard, or after reading. `planNodeQuery` picks the most selective
 * source a filter allows and leaves the rest to `matches`.
 */
import type { Node } from '#objects/node';
import { ALL_NODES, groupKey, guard, shardKey, sparseKey } from './keys';
import type { IndexSource } from './query';

export interface NodeFilter {
  readonly provisionState?: string;
  /** Any of these provision states (Ironic's `provision_state_in`). */
  readonly provisionStates?: readonly string[];
  readonly conductorGroup?: string;
  readonly shards?: readonly string[];
  readonly sharded?: boolean;
  readonly instanceUuid?: string;
  /** Exactly this instance name (API 1.104); checked on the nodes read, no index. */
  readonly instanceName?: string;
  readonly associated?: boolean;
  readonly maintenance?: boolean;
  readonly driver?: string;
  readonly resourceClass?: string;
  readonly owner?: string;
  readonly lessee?: string;
  /** Owner or lessee (Ironic's `project`: what a project-scoped user may see). */
  readonly project?: string;
  readonly fault?: string;
  readonly retired?: boolean;
  readonly chassisUuid?: string;
  readonly descriptionContains?: string;
  /** The parent a node names; null: nodes that are nobody's child. */
  readonly parentNode?: string | null;
  /** Locked (`reservation` set) or not. */
  readonly reserved?: boolean;
  readonly reservedByAnyOf?: readonly string[];
  /** provision_updated_at older than this many seconds. */
  readonly provisionedBefore?: number;
  readonly consoleEnabled?: boolean;
}

type FilterKey = keyof NodeFilter;

export interface NodeQueryPlan {
  readonly from: { readonly indexes: readonly IndexSource[] } | { readonly keys: readonly string[] };
  /** The filters the source leaves to be checked on each node; undefined when none. */
  readonly matches: ((node: Node) => boolean) | undefined;
  /** For the instance filter: the guard whose owner is the only candidate. */
  readonly instanceGuard?: string;
}

const index = (name: string, keyName: string, values: readonly string[]): IndexSource[] =>
  values.map((value) => ({ index: name, keyName, value }));

/** The source for a filter, most selective first, and what it answers. */
function sourceFor(filter: NodeFilter): { indexes: IndexSource[]; answers: FilterKey[] } {
  if (filter.chassisUuid !== undefined)
    return { indexes: index('byChassis', '_chassis', [sparseKey(filter.chassisUuid)!]), answers: ['chassisUuid'] };
  if (filter.owner !== undefined && filter.owner !== '')
    return { indexes: index('byOwner', '_owner', [sparseKey(filter.owner)!]), answers: ['owner'] };
  if (filter.lessee !== undefined && filter.lessee !== '')
    return { indexes: index('byLessee', '_lessee', [sparseKey(filter.lessee)!]), answers: ['lessee'] };
  if (filter.project !== undefined && filter.project !== '') {
    const key = sparseKey(filter.project)!;
    return { indexes: [...index('byOwner', '_owner', [key]), ...index('byLessee', '_lessee', [key])], answers: ['project'] };
  }
  if (filter.provisionState !== undefined)
    return { indexes: index('byProvisionState', '_pstate', [filter.provisionState]), answers: ['provisionState'] };
  if (filter.provisionStates !== undefined && filter.provisionStates.length > 0)
    return { indexes: index('byProvisionState', '_pstate', filter.provisionStates), answers: ['provisionStates'] };
  if (filter.shards !== undefined) return { indexes: index('byShard', '_shard', filter.shards.map(shardKey)), answers: ['shards'] };
  if (filter.sharded === false) return { indexes: index('byShard', '_shard', [shardKey(null)]), answers: ['sharded'] };
  if (filter.associated === true) return { indexes: index('byAssociated', '_assoc', [ASSOCIATED]), answers: ['associated'] };
  if (filter.conductorGroup !== undefined)
    return { indexes: index('byConductorGroup', '_group', [groupKey(filter.conductorGroup)]), answers: ['conductorGroup'] };
  if (filter.driver !== undefined) return { indexes: index('byDriver', '_driver', [filter.driver]), answers: ['driver'] };
  if (filter.maintenance === true) return { indexes: index('byMaintenance', '_maint', [IN_MAINTENANCE]), answers: ['maintenance'] };
  return { indexes: index('byId', '_all', [ALL_NODES]), answers: [] };
}

/** `_assoc` of a node with an instance; `_maint` of a node in maintenance (sparse indexes). */
export const ASSOCIATED = 'a';
export const IN_MAINTENANCE = 'm';

export function planNodeQuery(filter: NodeFilter, now: number): NodeQueryPlan {
  const defined = (Object.keys(filter) as FilterKey[]).filter((key) => filter[key] !== undefined);
  if (filter.instanceUuid !== undefined) {
    // One node at most owns an instance: its guard names it, no index needed.
    const rest = defined.filter((key) => key !== 'instanceUuid');
    return { from: { keys: [] }, matches: residual(filter, rest, now), instanceGuard: guard.nodeInstance(filter.instanceUuid) };
  }
  const { indexes, answers } = sourceFor(filter);
  return {
    from: { indexes },
    matches: residual(
      filter,
      defined.filter((key) => !answers.includes(key)),
      now,
    ),
  };
}

function residual(filter: NodeFilter, keys: readonly FilterKey[], now: number): ((node: Node) => boolean) | undefined {
  if (keys.length === 0) return undefined;
  const narrowed: Record<string, unknown> = {};
  for (const key of keys) narrowed[key] = filter[key];
  return (node) => matches(node, narrowed as NodeFilter, now);
}

/** Whether a node passes every filter given (Ironic's semantics for each). */
export function matches(node: Node, filter: NodeFilter, now: number = Date.now()): boolean {
  const f = filter;
  if (f.provisionState !== undefined && node.provision_state !== f.provisionState) return false;
  if (f.provisionStates !== undefined && !f.provisionStates.includes(node.provision_state)) return false;
  if (f.conductorGroup !== undefined && (node.conductor_group ?? '') !== f.conductorGroup) return false;
  // SQL `shard IN (…)`: a node without a shard never matches, an empty list matches nothing.
  if (f.shards !== undefined && (node.shard === null || !f.shards.includes(node.shard))) return false;
  if (f.sharded !== undefined && (node.shard !== null) !== f.sharded) return false;
  if (f.instanceUuid !== undefined && node.instance_uuid !== f.instanceUuid) return false;
  if (f.instanceName !== undefined && node.instance_name !== f.instanceName) return false;
  if (f.associated !== undefined && (node.instance_uuid !== null) !== f.associated) return false;
  if (f.maintenance !== undefined && node.maintenance !== f.maintenance) return false;
  if (f.driver !== undefined && node.driver !== f.driver) return false;
  if (f.resourceClass !== undefined && node.resource_class !== f.resourceClass) return false;
  if (f.owner !== undefined && node.owner !== f.owner) return false;
  if (f.lessee !== undefined && node.lessee !== f.lessee) return false;
  if (f.project !== undefined && node.owner !== f.project && node.lessee !== f.project) return false;
  if (f.fault !== undefined && node.fault !== f.fault) return false;
  if (f.retired !== undefined && node.retired !== f.retired) return false;
  if (f.chassisUuid !== undefined && node.chassis_uuid !== f.chassisUuid) return false;
  if (f.parentNode !== undefined && node.parent_node !== f.parentNode) return false;
  if (f.descriptionContains !== undefined && !sqlLike(node.description, f.descriptionContains)) return false;
  if (f.reserved !== undefined && (node.reservation !== null) !== f.reserved) return false;
  if (f.reservedByAnyOf !== undefined && !f.reservedByAnyOf.includes(node.reservation ?? '')) return false;
  if (f.consoleEnabled !== undefined && node.console_enabled !== f.consoleEnabled) return false;
  if (f.provisionedBefore !== undefined) {
    const at = node.provision_updated_at === null ? undefined : Date.parse(node.provision_updated_at);
    if (at === undefined || !(at < now - f.provisionedBefore * 1000)) return false;
  }
  return true;
}

/** `value LIKE '%keyword%'` as Ironic's database applies it: ASCII letters case-insensitive, `%` any run, `_` any one character. */
export function sqlLike(value: string | null, keyword: string): boolean {
  if (value === null) return false;
  const pattern = [...keyword]
    .map((ch) => {
      if (ch === '%') return '.*';
      if (ch === '_') return '.';
      if (/[A-Za-z]/.test(ch)) return `[${ch.toLowerCase()}${ch.toUpperCase()}]`;
      return ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    })
    .join('');
  return new RegExp(pattern, 'su').test(value);
}
