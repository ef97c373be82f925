/**
 * `PATCH /v1/ports/{uuid}`: an RFC 6902 patch of a port, with Ironic 21.4's rules (the API's
 * PortsController.patch and the conductor's update_port): patchable fields, fields newer than the
 * request's version, the portgroup and node it moves to, the MAC address of a deployed node, and
 * connectivity fields outside the states that allow them.
 */
import { ClientSideError, Invalid, InvalidState, NodeNotFound, OperationNotPermitted, PortgroupNotFound, withStatus } from '#common/errors';
import * as st from '#common/states';
import type { Portgroup } from '#objects/portgroup';
import { parseBody } from '../body';
import type { ApiContext } from '../context';
import { type ApiRequest, type ApiResponse, json } from '../http';
import { checkNodeIdent } from '../lookup';
import { atLeast } from '../microversion';
import { type PatchOperation, applyPatch } from '../patch';
import { checkPortIdent, findPort, nodeByIdentity } from '../port-lookup';
import { route } from '../route';
import { PATCH_SCHEMA } from '../schemas/node';
import { PORT_NAME_VERSION, PORT_VERSIONS, portSchema } from '../schemas/port';
import { validateSchema } from '../validation';
import { PORT_MASTER_FIELD_VERSIONS, checkPortFieldVersions, portView } from '../views/port';
import { validatePort } from './port-common';
import { checkOvnVtep, checkPhysnet } from './ports';
import {
  applyPatchedFields,
  checkNodeUnlocked,
  checkPatchPaths,
  isPathRemoved,
  isPathUpdated,
  patchValues,
  rejectArgs,
} from './resource-common';

export const PORT_PATCH_ALLOWED_FIELDS = [
  'address',
  'extra',
  'is_smartnic',
  'local_link_connection',
  'node_uuid',
  'physical_network',
  'portgroup_uuid',
  'pxe_enabled',
];

/** Ironic master's list (API 1.88 on): node_ident is allowed as a path, and then fails the schema. */
const PORT_PATCH_ALLOWED_FIELDS_MASTER = [
  ...PORT_PATCH_ALLOWED_FIELDS.slice(0, 4),
  'node_ident',
  ...PORT_PATCH_ALLOWED_FIELDS.slice(4),
  'name',
  ...Object.keys(PORT_MASTER_FIELD_VERSIONS),
];

/** Fields whose change needs the node in one of CONNECTIVITY_STATES or in maintenance. */
const CONNECTIVITY_FIELDS = ['portgroup_uuid', 'pxe_enabled', 'local_link_connection', 'physical_network'];
const CONNECTIVITY_STATES = [st.ENROLL, st.INSPECTING, st.INSPECTWAIT, st.MANAGEABLE];

/**
 * How Ironic names the connectivity fields in its message. NOTE: Ironic joins a Python set, whose
 * order changes from process to process; this is one of those orders.
 */
const CONNECTIVITY_NAMES = 'portgroup_id, local_link_connection, pxe_enabled, physical_network';

/** Fields (and sub-paths) the patch sets or removes that need a newer version than 1.1. */
function versionedPaths(patch: readonly PatchOperation[]): Set<string> {
  const out = new Set<string>();
  for (const field of [
    'pxe_enabled',
    'local_link_connection',
    'portgroup_uuid',
    'physical_network',
    'is_smartnic',
    'local_link_connection/network_type',
    ...Object.keys(PORT_MASTER_FIELD_VERSIONS),
  ]) {
    if (patchValues(patch, `/${field}`).length > 0 || isPathRemoved(patch, `/${field}`)) out.add(field);
  }
  return out;
}

async function patchPort(req: ApiRequest, ctx: ApiContext, params: { port: string; node?: string }): Promise<ApiResponse> {
  if (params.node !== undefined) checkNodeIdent(params.node);
  const named = atLeast(req.version, PORT_NAME_VERSION);
  checkPortIdent(req, params.port);
  const parsed = parseBody(req);
  rejectArgs(req, parsed);
  validateSchema('patch', PATCH_SCHEMA, parsed ?? {});
  if (params.node !== undefined) throw new OperationNotPermitted();
  const patch = parsed as PatchOperation[];
  checkPatchPaths(patch, named ? PORT_PATCH_ALLOWED_FIELDS_MASTER : PORT_PATCH_ALLOWED_FIELDS);
  checkPortFieldVersions(versionedPaths(patch), req.version);

  const port = await findPort(req, ctx, params.port);
  let node = await ctx.nodes.get(port.node_uuid);
  let portgroup: Portgroup | undefined = port.portgroup_uuid ? await ctx.stores.portgroups.get(port.portgroup_uuid) : undefined;
  const doc = { ...(port.toData() as Record<string, unknown>) };
  if (!named) delete doc.name;
  const patched = applyPatch(doc, patch);
  if (isPathUpdated(patch, '/portgroup_uuid')) {
    const target = patched.portgroup_uuid;
    try {
      portgroup = target ? await ctx.stores.portgroups.get(String(target)) : undefined;
    } catch (err) {
      if (err instanceof PortgroupNotFound) throw withStatus(err, 400);
      throw err;
    }
  }
  if (patched.node_uuid !== node.uuid) {
    try {
      node = await nodeByIdentity(ctx, String(patched.node_uuid));
    } catch (err) {
      if (err instanceof NodeNotFound) throw withStatus(err, 400);
      throw err;
    }
  }
  const schema = portSchema(req.version);
  for (const key of Object.keys(patched)) if (!(key in (schema.properties as object))) delete patched[key];
  validatePort('patch', patched, req.version);
  if (patch.some((op) => op.path === '/local_link_connection' || op.path.startsWith('/local_link_connection/'))) {
    checkOvnVtep(req, patched.local_link_connection);
  }
  patched.node_uuid = node.uuid;
  patched.portgroup_uuid = portgroup?.uuid ?? null;
  const changed = applyPatchedFields(port, patched, [
    'address',
    'extra',
    'node_uuid',
    'portgroup_uuid',
    'local_link_connection',
    'pxe_enabled',
    'physical_network',
    'is_smartnic',
    ...(named ? ['name', ...Object.keys(PORT_MASTER_FIELD_VERSIONS)] : []),
  ]);
  if (node.provision_state === st.INSPECTING && atLeast(req.version, 39)) {
    throw new ClientSideError(`Cannot update port "${port.uuid}" on "${node.uuid}" while it is in state "${st.INSPECTING}".`, 409);
  }
  if (isPathUpdated(patch, '/physical_network') && port.physical_network === '') {
    throw new Invalid('A non-empty value is required when setting physical_network');
  }
  // From 1.102 a portgroup has a physical network of its own, which its ports follow.
  if (atLeast(req.version, PORT_VERSIONS.portgroupPhysicalNetwork) && isPathUpdated(patch, '/physical_network') && portgroup) {
    throw new Invalid('physical_network cannot be changed while the port belongs to a portgroup.');
  }
  // The conductor's update_port, under the node's lock.
  checkNodeUnlocked(node);
  if ((node.provision_state === st.ACTIVE || node.instance_uuid) && changed.includes('address') && !node.maintenance) {
    throw new InvalidState(
      `Cannot update hardware address for port ${port.uuid} as node ${node.uuid} is active or has instance UUID assigned`,
    );
  }
  if (changed.some((f) => CONNECTIVITY_FIELDS.includes(f)) && !CONNECTIVITY_STATES.includes(node.provision_state) && !node.maintenance) {
    throw new InvalidState(
      `Port ${port.uuid} can not have any connectivity attributes (${CONNECTIVITY_NAMES}) updated unless node ${node.uuid} is in a ${CONNECTIVITY_STATES.join(', ')} state or in maintenance mode. The current state is ${node.provision_state}.`,
    );
  }
  if (portgroup && (changed.includes('portgroup_uuid') || changed.includes('physical_network'))) await checkPhysnet(ctx, port, portgroup);
  const saved = changed.length > 0 ? await ctx.stores.ports.save(port) : port;
  ctx.log.info('Port updated', { port: port.uuid, fields: changed });
  return json(200, portView(saved, { baseUrl: req.baseUrl, version: req.version }));
}

export const PORT_PATCH_ROUTES = [route('PATCH', '/v1/ports/:port', patchPort), route('PATCH', '/v1/nodes/:node/ports/:port', patchPort)];
