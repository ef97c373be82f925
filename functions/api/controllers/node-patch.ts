/**
 * `PATCH /v1/nodes/{node}`: an RFC 6902 patch of the node's fields, with Ironic 21.4's rules
 * (NodesController.patch and the conductor's update_node): which fields may be patched, which
 * may not change in which provision state, fields newer than the request's version (406), names,
 * instance association, driver and interfaces, protected and retired.
 *
 * The update is one conditional write on the revision read and on the lock: a node changed or
 * locked meanwhile is a 409, never a lost update.
 */
import { ClientSideError, Invalid, InvalidParameterValue, InvalidState, NodeAssociated, NodeLocked, NotAcceptable } from '#common/errors';
import { discardFailedUpdates } from '#common/firmware-bookkeeping';
import * as st from '#common/states';
import { Node } from '#objects/node';
import { arg, defineBesideBody } from '../request';
import { parseBody } from '../body';
import type { ApiContext } from '../context';
import { type ApiRequest, type ApiResponse, json } from '../http';
import { API_INTERFACES, checkAndUpdateInterfaces, checkConductorFor } from '../interfaces';
import { findNode, isLocked, requireChassis, resolveParentNode, retryOnConflict } from '../lookup';
import { atLeast } from '../microversion';
import { checkNodeName } from '../names';
import { type PatchOperation, applyPatch } from '../patch';
import { route } from '../route';
import { NETWORK_DATA_OUTLINE, NODE_DESCRIPTION_MAX_LENGTH, NODE_PATCH_SCHEMA, PATCH_SCHEMA } from '../schemas/node';
import { validateSchema } from '../validation';
import { fieldAllowed } from '../views/node';
import { destroyAllocationOf } from '../allocation-ops';
import { checkPropertyValues, formatConductorGroup, validateExtra } from '../node-create';
import { conductorName, showNode } from './nodes';

/** Top-level fields a PATCH may touch (Ironic's PATCH_ALLOWED_FIELDS; parent_node, firmware_interface and the API 1.95+ fields last). */
export const PATCH_ALLOWED_FIELDS = [
  'automated_clean',
  'bios_interface',
  'boot_interface',
  'chassis_uuid',
  'conductor_group',
  'console_interface',
  'deploy_interface',
  'description',
  'driver',
  'driver_info',
  'extra',
  'inspect_interface',
  'instance_info',
  'instance_uuid',
  'lessee',
  'maintenance',
  'management_interface',
  'name',
  'network_data',
  'network_interface',
  'owner',
  'power_interface',
  'properties',
  'protected',
  'protected_reason',
  'raid_interface',
  'rescue_interface',
  'resource_class',
  'retired',
  'retired_reason',
  'shard',
  'storage_interface',
  'vendor_interface',
  'parent_node',
  'firmware_interface',
  'disable_power_off',
  'instance_name',
];

/** States in which interfaces and resource_class may change without maintenance mode. */
const INTERFACE_UPDATE_STATES = [st.ENROLL, st.INSPECTING, st.INSPECTWAIT, st.MANAGEABLE, st.AVAILABLE];

/** Values a patch sets at exactly `path` (Ironic's get_patch_values). */
function patchValues(patch: readonly PatchOperation[], path: string): unknown[] {
  return patch.filter((p) => p.path === path && p.op !== 'remove').map((p) => p.value);
}

function checkPatch(req: ApiRequest, patch: readonly PatchOperation[], resetInterfaces: boolean | undefined): void {
  for (const p of patch) {
    if (!PATCH_ALLOWED_FIELDS.includes(p.path.split('/')[1] as string)) {
      throw new Invalid(`Cannot patch ${p.path}. Only the following can be updated: ${PATCH_ALLOWED_FIELDS.join(', ')}`);
    }
  }
  for (const field of PATCH_ALLOWED_FIELDS) {
    if (!fieldAllowed(field, req.version) && patchValues(patch, `/${field}`).length > 0) throw new NotAcceptable('Request not acceptable.');
  }
  if (resetInterfaces && patchValues(patch, '/driver').length === 0) {
    throw new Invalid("The reset_interfaces parameter can only be used when changing the node's driver.");
  }
  const description = patchValues(patch, '/description')[0];
  if (typeof description === 'string' && [...description].length > NODE_DESCRIPTION_MAX_LENGTH) {
    throw new Invalid(`Cannot update node with description exceeding ${NODE_DESCRIPTION_MAX_LENGTH} characters`);
  }
  for (const networkData of patchValues(patch, '/network_data')) {
    try {
      validateSchema('network_data', NETWORK_DATA_OUTLINE, networkData);
    } catch (err) {
      throw new Invalid(`Invalid network_data: ${(err as Error).message.replace(/^Schema error for network_data: /, '')} `);
    }
  }
}

/** Provision-state rules for any update (the API's checks before the patch is applied). */
function checkUpdatable(req: ApiRequest, node: Node, ident: string, patch: readonly PatchOperation[]): void {
  const only = patch[0];
  const onlyRemovesInstance =
    patch.length === 1 && only?.op === 'remove' && only.path === '/instance_uuid' && Object.keys(only).length === 2;
  if (node.maintenance && onlyRemovesInstance) return;
  if (node.target_provision_state && !st.UPDATE_ALLOWED_STATES.includes(node.provision_state)) {
    throw new ClientSideError(`Node ${ident} can not be updated while a state transition is in progress.`, 409);
  }
  if (node.provision_state === st.INSPECTING && atLeast(req.version, 39)) {
    throw new ClientSideError(`Cannot update node "${node.uuid}" while it is in state "${st.INSPECTING}".`, 409);
  }
}

/** The node's fields as the patch sees them (Ironic's `as_dict()` plus chassis_uuid). */
function patchDocument(node: Node): Record<string, unknown> {
  const doc: Record<string, unknown> = {};
  for (const field of Object.keys(NODE_PATCH_SCHEMA.properties as object)) {
    doc[field] = (node as unknown as Record<string, unknown>)[field] ?? null;
  }
  return doc;
}

/** The conductor's update_node rules, on the changed fields. */
function checkUpdate(node: Node, before: Node, changed: Set<string>, resetInterfaces: boolean): void {
  if (changed.has('maintenance') && !node.maintenance) {
    node.maintenance_reason = null;
    node.fault = null;
  }
  if (changed.has('protected')) {
    if (!node.protected) node.protected_reason = null;
    else if (node.provision_state !== st.ACTIVE && node.provision_state !== st.RESCUE) {
      throw new InvalidState(
        `Node ${node.uuid} can only be made protected in provision states 'active' or 'rescue', the current state is '${node.provision_state}'`,
      );
    }
  }
  if (changed.has('protected_reason') && node.protected_reason && !node.protected) {
    throw new InvalidParameterValue('The protected_reason field can only be set when protected is True');
  }
  if (changed.has('retired')) {
    if (!node.retired) node.retired_reason = null;
    else if (node.provision_state === st.AVAILABLE) {
      throw new InvalidState(
        `Node ${node.uuid} can not have 'retired' set in provision state 'available', the current state is '${node.provision_state}'`,
      );
    }
  }
  if (changed.has('retired_reason') && node.retired_reason && !node.retired) {
    throw new InvalidParameterValue('The retired_reason field can only be set when retired is True');
  }
  const data = node as unknown as Record<string, unknown>;
  const updatingDriver = changed.has('driver');
  let checkInterfaces = updatingDriver;
  for (const iface of API_INTERFACES) {
    const field = `${iface}_interface`;
    if (!changed.has(field)) {
      if (updatingDriver && resetInterfaces) data[field] = null;
      continue;
    }
    if (!INTERFACE_UPDATE_STATES.includes(node.provision_state) && !node.maintenance) {
      throw new InvalidState(
        `Node ${node.uuid} can not have ${field} updated unless it is in one of allowed (${INTERFACE_UPDATE_STATES.join(', ')}) states or in maintenance mode.`,
      );
    }
    checkInterfaces = true;
  }
  if (checkInterfaces) {
    const fields: Record<string, unknown> = { driver: node.driver, instance_info: node.instance_info };
    for (const iface of API_INTERFACES) fields[`${iface}_interface`] = data[`${iface}_interface`];
    checkAndUpdateInterfaces(fields);
    for (const iface of API_INTERFACES) data[`${iface}_interface`] = fields[`${iface}_interface`];
  }
  if (isLocked(before)) throw new NodeLocked(before.uuid, before.reservation as string);
  if (changed.has('instance_uuid') && node.instance_uuid && before.instance_uuid) {
    throw new NodeAssociated(node.uuid, before.instance_uuid);
  }
  if (changed.has('resource_class') && before.resource_class && !INTERFACE_UPDATE_STATES.includes(before.provision_state)) {
    throw new InvalidState(
      `Node ${node.uuid} can not have resource_class updated unless it is in one of allowed (${INTERFACE_UPDATE_STATES.join(', ')}) states.`,
    );
  }
  checkPropertyValues(node.uuid, node.properties);
  node.conductor_group = formatConductorGroup(node.conductor_group);
}

/**
 * Removing the instance of a node that holds an allocation removes the allocation too, in states
 * where updates are allowed or in maintenance (Ironic's update_node); the allocation this returns
 * is destroyed once the node is saved.
 */
function releasedAllocation(node: Node, before: Node, changed: Set<string>): string | undefined {
  if (!changed.has('instance_uuid') || !before.allocation_uuid || node.instance_uuid) return undefined;
  if (!before.maintenance && !INTERFACE_UPDATE_STATES.includes(before.provision_state)) {
    throw new InvalidState(
      `Node ${node.uuid} with an allocation can not have instance_uuid removed unless it is in one of allowed (${INTERFACE_UPDATE_STATES.join(', ')}) states or in maintenance mode.`,
    );
  }
  node.allocation_uuid = null;
  return before.allocation_uuid;
}

/** The query beside the patch (pecan hands the body to `patch`). */
const PatchQuery = defineBesideBody({ reset_interfaces: arg.boolean() });

export async function patchNode(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  const parsed = parseBody(req);
  const { reset_interfaces: resetInterfaces } = PatchQuery.read(req, parsed);
  validateSchema('patch', PATCH_SCHEMA, parsed ?? {});
  const patch = parsed as PatchOperation[];
  if (resetInterfaces !== undefined && !atLeast(req.version, 45)) throw new NotAcceptable('Request not acceptable.');
  checkPatch(req, patch, resetInterfaces);
  // Ironic's conductor serializes updates of a node under its lock; here two PATCHes of one node
  // race on a conditional write, and the one that loses applies its patch again to what the other
  // saved (so clients updating a node side by side do not see 409s Ironic would not give).
  return retryOnConflict(() => patchOnce(req, ctx, params, patch, resetInterfaces));
}

async function patchOnce(
  req: ApiRequest,
  ctx: ApiContext,
  params: { ident: string },
  patch: PatchOperation[],
  resetInterfaces: boolean | undefined,
): Promise<ApiResponse> {
  const node = await findNode(req, ctx, params.ident, true);
  checkUpdatable(req, node, params.ident, patch);
  const names = patchValues(patch, '/name');
  for (const name of names) checkNodeName(name, req.version, (n) => `Node ${params.ident}: Cannot change name to invalid name '${n}'`);

  const patched = applyPatch(patchDocument(node), patch);
  validateSchema('patch', NODE_PATCH_SCHEMA, patched);
  validateExtra(patched);
  if (patched.chassis_uuid) patched.chassis_uuid = await requireChassis(ctx, patched.chassis_uuid as string);
  // Only a parent the patch names is checked (and stored as its UUID); one set before stays as it is.
  const parents = patchValues(patch, '/parent_node');
  if (parents.length > 0 && patched.parent_node) patched.parent_node = await resolveParentNode(req, ctx, String(patched.parent_node));
  if (patched.conductor_group === null || patched.conductor_group === undefined) patched.conductor_group = '';
  patched.conductor_group = String(patched.conductor_group).toLowerCase();
  if (patched.protected === null || patched.protected === undefined) patched.protected = false;

  const before = new Node(structuredClone(node.toData()));
  before.storeMeta = node.storeMeta;
  const data = node as unknown as Record<string, unknown>;
  const changed = new Set<string>();
  // instance_info last: setting it gives a node left without an instance_name its display_name
  // (Node.markChanged), after the patch's own instance_name is in place, as Ironic syncs them.
  const fields = Object.keys(NODE_PATCH_SCHEMA.properties as object).filter((f) => f !== 'instance_info');
  for (const field of [...fields, 'instance_info']) {
    if (field === 'uuid' || field === 'chassis_uuid') continue;
    const value = patched[field] ?? (field === 'protected' || field === 'disable_power_off' ? false : null);
    if (JSON.stringify(data[field] ?? null) !== JSON.stringify(value)) {
      data[field] = value;
      changed.add(field);
    }
  }
  if (before.chassis_uuid && !patched.chassis_uuid && !atLeast(req.version, 25)) throw new NotAcceptable('Request not acceptable.');
  const chassis = (patched.chassis_uuid as string | null | undefined) || null;
  if (node.chassis_uuid !== chassis) {
    node.chassis_uuid = chassis;
    changed.add('chassis_uuid');
  }
  await checkConductorFor(ctx, node.driver, node.conductor_group, node.uuid);
  if (changed.has('driver') && node.console_enabled) {
    throw new ClientSideError(
      `Node ${params.ident} can not update the driver while the console is enabled. Please stop the console first.`,
      409,
    );
  }
  checkUpdate(node, before, changed, resetInterfaces === true);
  // A failed node put in maintenance goes on with no firmware update (master's _query_update_failed).
  if (changed.has('maintenance') && discardFailedUpdates(node)) {
    ctx.log.error(`Update firmware failed for node ${node.uuid}. Discarding remaining firmware updates.`);
  }
  const allocation = releasedAllocation(node, before, changed);
  const saved = await ctx.nodes.save(node);
  if (allocation) await destroyAllocationOf(ctx, allocation);
  ctx.log.info('Node updated', { node: node.uuid, fields: [...changed] });
  // Ironic's conductor answers with the node as it saved it, under its own lock.
  const view = await showNode(req, ctx, saved);
  // The conductor that saved it is the one serving the node (Ironic's update_node runs there).
  if ('reservation' in view) view.reservation = (await ctx.conductors.conductorOrNull(saved)) ?? conductorName(ctx);
  return json(200, view);
}

export const NODE_PATCH_ROUTES = [route('PATCH', '/v1/nodes/:ident', patchNode)];
