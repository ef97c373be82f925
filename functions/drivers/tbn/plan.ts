/**
 * Planning a VIF attach with trait based networking (Ironic's `trait_based_networking/plan.py`):
 * pure functions from the node's traits, its free ports and portgroups and the VIF to the actions
 * the network interface then carries out.
 */
import { ANY_NETWORK, type NetworkFacts, type PortLikeFacts, matches } from './filter';
import type { NetworkTrait, TraitAction } from './rules';

export interface PlanPort extends PortLikeFacts {
  readonly kind: 'port';
  readonly uuid: string;
  readonly available_for_dynamic_portgroup: boolean;
}

export interface PlanPortgroup extends PortLikeFacts {
  readonly kind: 'portgroup';
  readonly uuid: string;
}

export type PlannedAction =
  | { readonly type: 'attach_port'; readonly trait: string; readonly uuid: string }
  | { readonly type: 'attach_portgroup'; readonly trait: string; readonly uuid: string }
  /** Build a dynamic portgroup of these ports (same physical network) and attach the VIF to it. */
  | { readonly type: 'group_and_attach_ports'; readonly trait: string; readonly portUuids: readonly string[] }
  | { readonly type: 'not_implemented'; readonly trait: string; readonly action: string }
  | { readonly type: 'no_match'; readonly trait: string; readonly reason: string };

/** The traits of `rules` the node's `instance_info.traits` names, in the rules' order. */
export function traitsForNode(rules: readonly NetworkTrait[], instanceTraits: unknown): NetworkTrait[] {
  const names = new Set(Array.isArray(instanceTraits) ? instanceTraits.filter((t): t is string => typeof t === 'string') : []);
  return rules.filter((trait) => names.has(trait.name));
}

function planAttach<T extends PlanPort | PlanPortgroup>(
  action: TraitAction,
  candidates: readonly T[],
  network: NetworkFacts,
  make: (uuid: string) => PlannedAction,
): PlannedAction[] {
  const planned: PlannedAction[] = [];
  for (const candidate of candidates) {
    if (!matches(action.filter, candidate, network)) continue;
    planned.push(make(candidate.uuid));
    // Without a minimum the first match is enough.
    if (action.minCount === null || planned.length === action.maxCount) break;
  }
  const kind = candidates[0]?.kind ?? 'port';
  if (planned.length === 0) return [{ type: 'no_match', trait: action.trait, reason: `No (${kind}, network) pairs matched rule.` }];
  if (action.minCount !== null && planned.length < action.minCount) {
    return [
      {
        type: 'no_match',
        trait: action.trait,
        reason: `Not enough (${kind}, network) pairs matched to meet minimum count threshold. Matched ${planned.length} but min_count is ${action.minCount}.`,
      },
    ];
  }
  return planned;
}

function planGroup(action: TraitAction, ports: readonly PlanPort[], network: NetworkFacts): PlannedAction {
  const chosen: PlanPort[] = [];
  for (const port of ports) {
    if (!port.available_for_dynamic_portgroup || !matches(action.filter, port, ANY_NETWORK)) continue;
    // A portgroup's ports share one physical network: the first chosen port sets it.
    if (chosen.length > 0 && chosen[0]?.physical_network !== port.physical_network) continue;
    chosen.push(port);
    if (chosen.length === action.maxCount) break;
  }
  const min = action.minCount ?? 2;
  if (chosen.length < min) {
    return {
      type: 'no_match',
      trait: action.trait,
      reason: `Couldn't match enough ports to form a dynamic portgroup: minimum ports needed is ${min}, and ${chosen.length} ports matched.`,
    };
  }
  // The first port stands in for the portgroup when the network is considered.
  if (!matches(action.filter, chosen[0] as PlanPort, network)) {
    return {
      type: 'no_match',
      trait: action.trait,
      reason: 'Enough ports matched to form a dynamic portgroup, but the network did not match.',
    };
  }
  return { type: 'group_and_attach_ports', trait: action.trait, portUuids: chosen.map((p) => p.uuid) };
}

const isNoMatch = (a: PlannedAction): boolean => a.type === 'no_match';

/** One trait's actions in order, each taking ports the earlier ones left (Ironic's plan_network). */
export function planTrait(
  trait: NetworkTrait,
  ports: readonly PlanPort[],
  portgroups: readonly PlanPortgroup[],
  network: NetworkFacts,
): PlannedAction[] {
  let freePorts = [...ports];
  let freePortgroups = [...portgroups];
  const out: PlannedAction[] = [];
  for (const action of trait.actions) {
    let planned: PlannedAction[];
    switch (action.action) {
      case 'attach_port':
        planned = planAttach(action, freePorts, network, (uuid) => ({ type: 'attach_port', trait: trait.name, uuid }));
        break;
      case 'attach_portgroup':
        planned = planAttach(action, freePortgroups, network, (uuid) => ({ type: 'attach_portgroup', trait: trait.name, uuid }));
        break;
      case 'group_and_attach_ports':
        planned = [planGroup(action, freePorts, network)];
        break;
      default:
        planned = [{ type: 'not_implemented', trait: trait.name, action: action.action }];
    }
    const used = new Set(planned.flatMap((a) => (a.type === 'group_and_attach_ports' ? a.portUuids : 'uuid' in a ? [a.uuid] : [])));
    freePorts = freePorts.filter((p) => !used.has(p.uuid));
    freePortgroups = freePortgroups.filter((p) => !used.has(p.uuid));
    out.push(...planned);
  }
  return out;
}

/**
 * The actions for attaching `network`: the first trait (by ascending `order`, then as listed)
 * that plans anything but no-matches wins; if none does, a single no-match.
 */
export function planVifAttach(
  traits: readonly NetworkTrait[],
  ports: readonly PlanPort[],
  portgroups: readonly PlanPortgroup[],
  network: NetworkFacts,
): PlannedAction[] {
  const ordered = [...traits].sort((a, b) => a.order - b.order);
  for (const trait of ordered) {
    const actions = planTrait(trait, ports, portgroups, network);
    if (!actions.every(isNoMatch)) return actions;
  }
  return [
    { type: 'no_match', trait: 'plan_vif_attach', reason: 'Could not find an applicable port or portgroup in any applicable trait.' },
  ];
}
