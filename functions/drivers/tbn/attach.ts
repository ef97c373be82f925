/**
 * Carrying out a trait based networking plan on the `flat` interface (Ironic's
 * `NeutronVIFPortIDMixin._vif_attach_tbn`, `_create_dynamic_portgroup`,
 * `_teardown_dynamic_portgroup`), without Neutron: a VIF is recorded on the chosen ports and
 * portgroups, and `group_and_attach_ports` builds a dynamic portgroup of the chosen ports.
 *
 * NOTE: Ironic also tells Neutron (the VIF's MAC address, its host binding, and binding to the
 * tenant network when the node is active); Ironless has no Neutron, as for a plain flat attach.
 * Every write is conditional (the node lock is held; a port changed meanwhile fails with 409),
 * and a dynamic portgroup whose ports could not all be moved into it is taken apart again.
 */
import { randomInt } from 'node:crypto';
import { TbnNoPortMatchesFound, TbnNoTraitsApplicableToNode, VifAlreadyAttached } from '#common/errors';
import { newUuid } from '#common/ids';
import { PortgroupDuplicateName } from '#common/resource-errors';
import type { Port } from '#objects/port';
import { Portgroup } from '#objects/portgroup';
import type { NetworkTask, VifInfo } from '../base';
import { attachedVif, isPortgroup, recordVif } from '../vif-record';
import type { NetworkFacts } from './filter';
import { type PlanPort, type PlanPortgroup, type PlannedAction, planVifAttach, traitsForNode } from './plan';
import { BUILTIN_DEFAULT_TRAIT, DEFAULT_TRAIT_NAME, type NetworkTrait, type TbnConfig } from './rules';

const NAME_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Ironic's dynamic portgroup names: `tbn_dyn_portgroup_` and eight random letters or digits. */
export function dynamicPortgroupName(): string {
  let suffix = '';
  for (let i = 0; i < 8; i++) suffix += NAME_ALPHABET[randomInt(NAME_ALPHABET.length)];
  return `tbn_dyn_portgroup_${suffix}`;
}

/** The VIF as filters see it: `name` and `tags` from the attach request (Nova passes its network's). */
export function networkFacts(vif: VifInfo): NetworkFacts {
  const tags = Array.isArray(vif.tags) ? vif.tags.filter((t): t is string => typeof t === 'string') : [];
  return { name: typeof vif.name === 'string' ? vif.name : null, tags };
}

const newestFirst = <T extends { created_at: string }>(items: readonly T[]): T[] =>
  [...items].sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0));

function planPort(port: Port): PlanPort {
  const { uuid, address, category, physical_network, vendor, available_for_dynamic_portgroup } = port;
  return { kind: 'port', uuid, address, category, physical_network, vendor, available_for_dynamic_portgroup };
}

function planPortgroup(pg: Portgroup): PlanPortgroup {
  return {
    kind: 'portgroup',
    uuid: pg.uuid,
    address: pg.address,
    category: pg.category,
    physical_network: pg.physical_network,
    vendor: null,
  };
}

/** The traits to plan with: the node's, else the default trait (the rules' own, or Ironic's built-in). */
function applicableTraits(task: NetworkTask, cfg: TbnConfig): NetworkTrait[] | undefined {
  const traits = traitsForNode(cfg.traits, task.node.instance_info.traits);
  if (traits.length > 0) return traits;
  if (cfg.enableDefaultTrait) return [cfg.traits.find((t) => t.name === DEFAULT_TRAIT_NAME) ?? BUILTIN_DEFAULT_TRAIT];
  if (cfg.raiseWhenNoMatch) throw new TbnNoTraitsApplicableToNode(task.node.uuid);
  task.log.warn('Trait based networking: no applicable traits, nothing attached', { node: task.node.uuid });
  return undefined;
}

/** Build a dynamic portgroup of `ports` (three tries at a free name, as Ironic). */
async function createDynamicPortgroup(task: NetworkTask, ports: readonly Port[]): Promise<Portgroup> {
  for (let attempt = 1; ; attempt++) {
    const pg = new Portgroup({
      uuid: newUuid(),
      name: dynamicPortgroupName(),
      node_uuid: task.node.uuid,
      physical_network: ports[0]?.physical_network ?? null,
      dynamic_portgroup: true,
      created_at: new Date().toISOString(),
    });
    try {
      const created = await task.createPortgroup(pg);
      task.log.info(`Created dynamic portgroup '${created.name ?? created.uuid}'`, { node: task.node.uuid, portgroup: created.uuid });
      return created;
    } catch (err) {
      if (!(err instanceof PortgroupDuplicateName) || attempt >= 3) throw err;
    }
  }
}

/** Move `ports` into a new dynamic portgroup; on a failed write, put back what moved and remove it. */
async function groupPorts(task: NetworkTask, ports: readonly Port[]): Promise<Portgroup> {
  const pg = await createDynamicPortgroup(task, ports);
  const moved: { port: Port; from: string | null }[] = [];
  let failed: { port: Port; from: string | null } | undefined;
  try {
    for (const port of ports) {
      failed = { port, from: port.portgroup_uuid };
      port.portgroup_uuid = pg.uuid;
      await task.savePort(port);
      moved.push(failed);
    }
    return pg;
  } catch (err) {
    // The port whose write failed was not changed in the table: only its copy here was.
    if (failed !== undefined) failed.port.portgroup_uuid = failed.from;
    for (const { port, from } of moved.reverse()) {
      port.portgroup_uuid = from;
      await task.savePort(port);
    }
    await task.destroyPortgroup(pg);
    throw err;
  }
}

async function apply(task: NetworkTask, vifId: string, action: PlannedAction): Promise<void> {
  switch (action.type) {
    case 'attach_port':
    case 'attach_portgroup': {
      const list: readonly (Port | Portgroup)[] = action.type === 'attach_port' ? task.ports : task.portgroups;
      const target = list.find((obj) => obj.uuid === action.uuid);
      if (target !== undefined) await recordVif(task, target, vifId);
      return;
    }
    case 'group_and_attach_ports': {
      const ports = action.portUuids.map((uuid) => task.ports.find((p) => p.uuid === uuid)).filter((p) => p !== undefined);
      const pg = await groupPorts(task, ports);
      await recordVif(task, pg, vifId);
      return;
    }
    case 'not_implemented':
      task.log.warn(`Trait based networking: action '${action.action}' of trait ${action.trait} is not implemented; skipped`);
      return;
    case 'no_match':
      return;
  }
}

/** Attach `vif` as the trait based networking rules say (Ironic's `_vif_attach_tbn`). */
export async function tbnVifAttach(task: NetworkTask, vif: VifInfo, cfg: TbnConfig): Promise<void> {
  // NOTE: Ironic's TBN path does not check this; attaching a VIF twice would group ports twice.
  for (const obj of [...task.ports, ...task.portgroups]) {
    if (attachedVif(obj) === vif.id) throw new VifAlreadyAttached(vif.id, isPortgroup(obj) ? 'Portgroup' : 'Port', obj.uuid);
  }
  const traits = applicableTraits(task, cfg);
  if (traits === undefined) return;
  const ports = newestFirst(task.ports.filter((p) => attachedVif(p) === undefined)).map(planPort);
  const portgroups = newestFirst(task.portgroups.filter((pg) => attachedVif(pg) === undefined)).map(planPortgroup);
  const actions = planVifAttach(traits, ports, portgroups, networkFacts(vif)).filter((a) => a.type !== 'no_match');
  if (actions.length === 0) {
    if (cfg.raiseWhenNoMatch) throw new TbnNoPortMatchesFound(task.node.uuid, vif.id);
    task.log.warn('Trait based networking: no port or portgroup matched, nothing attached', { node: task.node.uuid, vif: vif.id });
    return;
  }
  for (const action of actions) await apply(task, vif.id, action);
}

/** Take a dynamic portgroup apart once its VIF is detached: its ports leave it, then it is deleted. */
export async function releaseDynamicPortgroup(task: NetworkTask, pg: Portgroup): Promise<void> {
  for (const port of task.ports.filter((p) => p.portgroup_uuid === pg.uuid)) {
    port.portgroup_uuid = null;
    await task.savePort(port);
  }
  await task.destroyPortgroup(pg);
  task.log.info(`Deleted dynamic portgroup '${pg.name ?? pg.uuid}'`, { node: task.node.uuid, portgroup: pg.uuid });
}
