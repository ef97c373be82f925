/**
 * What `/v1/volume/connectors` and `/v1/volume/targets` do, for either kind (Ironic 21.4's
 * VolumeConnectorsController and VolumeTargetsController, which differ only in their fields, and
 * the conductor's update_volume_* and destroy_volume_*): list, show, create, update, delete, also
 * under `/v1/nodes/{node}/volume/…`, where only lists are served and the rest is refused (403)
 * after the same checks. The whole API is 1.32's: below, a 404.
 *
 * A create checks only that the node exists, as Ironic's does (it writes without the conductor).
 * An update needs the node powered off; a delete needs it powered off or in enroll, manageable or
 * adopt failed (Ironic master's DELETE_ALLOWED_STATES; 21.4 wanted it powered off). Both wait for
 * the node's lock as the conductor does, and write only if the node is still so (a condition of
 * the same transaction).
 */
import {
  Invalid,
  InvalidParameterValue,
  InvalidStateRequested,
  NodeNotFound,
  NotFound,
  OperationNotPermitted,
  httpErrors,
} from '#common/errors';
import { isOsloUuidLike, isUuidLike, newUuid } from '#common/ids';
import { DELETE_ALLOWED_STATES, POWER_OFF } from '#common/states';
import { InvalidInput } from '#common/volume-errors';
import type { Node } from '#objects/node';
import { argUuid, argUuidOrName } from '../args';
import { pyStr } from '#common/pyrepr';
import { parseBody } from '../body';
import type { ApiContext } from '../context';
import { type ApiRequest, type ApiResponse, json, noContent } from '../http';
import { checkNodeIdent, findNode, whenUnlocked } from '../lookup';
import { atLeast } from '../microversion';
import { type PatchOperation, applyPatch } from '../patch';
import { nodeByIdentity } from '../port-lookup';
import { checkInvalidSortKey, readPaging, sortField } from '../resource-list';
import { PATCH_SCHEMA } from '../schemas/node';
import { validateSchema } from '../validation';
import { applyPatchedFields, checkPatchPaths, patchValues, rejectArgs } from './resource-common';
import type { VolumeItem, VolumeKind } from './volume-kinds';
import { Arg, NO_QUERY, arg, defineQuery } from '../request';

/** API 1.32 added volume connectors and targets. */
export const VOLUME_VERSION = 32;

/** Below 1.32 the volume paths do not exist (pecan's 404). */
export function requireVolume(req: ApiRequest): void {
  if (!atLeast(req.version, VOLUME_VERSION)) throw httpErrors.notFound();
}

/** `/v1/volume` itself below 1.32: Ironic's NotFound, in its own error form. */
export function requireVolumeRoot(req: ApiRequest): void {
  if (!atLeast(req.version, VOLUME_VERSION)) throw new NotFound('Resource could not be found.');
}

/** A nested path: its node passed the router's check, and the API is 1.32's. */
function checkPath(req: ApiRequest, parent: string | undefined): void {
  if (parent !== undefined) checkNodeIdent(parent);
  requireVolume(req);
}

/** The list's arguments, in the order of Ironic's signature. */
const ListQuery = defineQuery({
  node: Arg.of(argUuidOrName),
  marker: arg.uuidAsGiven(),
  limit: arg.integer(),
  sort_key: arg.string(),
  sort_dir: arg.string(),
  fields: arg.stringList(),
  detail: arg.boolean(),
  // Ironic's handler takes `project` too, and replaces it with what its policy allows.
  project: Arg.of(() => undefined),
});

/** Show: the item's UUID (`connector_uuid`, `target_uuid`) is checked with `fields`, before the lookup. */
const ShowQueries = {
  connector: defineQuery({ connector_uuid: arg.uuidAsGiven(), fields: arg.stringList() }, { path: ['connector_uuid'] }),
  target: defineQuery({ target_uuid: arg.uuidAsGiven(), fields: arg.stringList() }, { path: ['target_uuid'] }),
};

/** The parent node of a nested list, by UUID only (Ironic's check_volume_list_policy). */
async function parentNode(ctx: ApiContext, ident: string): Promise<Node> {
  if (!isOsloUuidLike(ident)) throw new NodeNotFound(ident);
  return ctx.nodes.get(ident);
}

export async function listVolume<T extends VolumeItem>(
  kind: VolumeKind<T>,
  req: ApiRequest,
  ctx: ApiContext,
  parent?: string,
): Promise<ApiResponse> {
  checkPath(req, parent);
  const v = ListQuery.read(req);
  if (parent !== undefined) await parentNode(ctx, parent);
  const detail = v.detail;
  let fields = v.fields;
  if (fields === undefined && !detail) fields = [...kind.listFields];
  if (fields !== undefined && fields.length > 0 && detail) {
    throw new InvalidParameterValue("Can't fetch a subset of fields with 'detail' set");
  }
  const sortKey = v.sort_key ?? 'id';
  const paging = readPaging(ctx, v.limit, sortKey, v.sort_dir ?? 'asc');
  const marker = v.marker;
  const store = kind.store(ctx);
  if (marker !== undefined) await store.get(marker);
  checkInvalidSortKey(sortKey, kind.sort);
  const ident = parent ?? v.node;
  const nodeUuid = ident ? (await findNode(req, ctx, ident)).uuid : undefined;
  const page = await store.list(nodeUuid === undefined ? {} : { nodeUuid }, {
    limit: paging.limit,
    ...(marker !== undefined ? { marker } : {}),
    sortKey: sortField(sortKey, kind.sort),
    sortDir: paging.sortDir,
  });
  const body: Record<string, unknown> = {
    [kind.plural]: page.items.map((item) => kind.view(item, { baseUrl: req.baseUrl, fields })),
  };
  const last = page.items[page.items.length - 1];
  if (last !== undefined && page.items.length === paging.limit) {
    // Ironic's next link: sort_key, sort_dir, detail when true, fields when any.
    const query = [`sort_key=${sortKey}`, `sort_dir=${paging.sortDir}`];
    if (detail) query.push('detail=True');
    if (fields !== undefined && fields.length > 0) query.push(`fields=${fields.join(',')}`);
    body.next = `${req.baseUrl}/v1/volume/${kind.plural}?${query.map((q) => `${q}&`).join('')}limit=${paging.limit}&marker=${last.uuid}`;
  }
  return json(200, body);
}

export async function getVolume<T extends VolumeItem>(
  kind: VolumeKind<T>,
  req: ApiRequest,
  ctx: ApiContext,
  uuid: string,
  parent?: string,
): Promise<ApiResponse> {
  checkPath(req, parent);
  const { fields } = ShowQueries[kind.singular].read(req, { [`${kind.singular}_uuid`]: uuid });
  const item = await kind.store(ctx).get(uuid);
  if (parent !== undefined) throw new OperationNotPermitted();
  return json(200, kind.view(item, { baseUrl: req.baseUrl, fields }));
}

/** Ironic's *_VALIDATOR: the schema, then `node_uuid` and `uuid` must be UUIDs. */
function validateVolume(kind: VolumeKind<VolumeItem>, name: string, data: unknown): Record<string, unknown> {
  validateSchema(name, kind.schema, data);
  const values = data as Record<string, unknown>;
  if ('node_uuid' in values) argUuid('node_uuid', values.node_uuid);
  if ('uuid' in values) argUuid('uuid', values.uuid);
  return values;
}

export async function createVolume<T extends VolumeItem>(
  kind: VolumeKind<T>,
  req: ApiRequest,
  ctx: ApiContext,
  parent?: string,
): Promise<ApiResponse> {
  checkPath(req, parent);
  const body = parseBody(req) ?? {};
  rejectArgs(req, body);
  const data = validateVolume(kind as VolumeKind<VolumeItem>, kind.singular, body);
  const nodeUuid = data.node_uuid as string;
  let node: Node;
  try {
    node = await ctx.nodes.get(nodeUuid);
  } catch (err) {
    if (err instanceof NodeNotFound) throw new InvalidInput('node_uuid', nodeUuid);
    throw err;
  }
  if (parent !== undefined) throw new OperationNotPermitted();
  const values: Record<string, unknown> = { ...data, uuid: (data.uuid as string | null | undefined) || newUuid(), node_uuid: node.uuid };
  for (const dict of ['extra', 'properties']) if (dict in (kind.schema.properties as object) && !values[dict]) values[dict] = {};
  const created = await kind.store(ctx).create(kind.build(values));
  ctx.log.info(`Volume ${kind.singular} created`, { [kind.singular]: created.uuid, node: node.uuid });
  return json(201, kind.view(created, { baseUrl: req.baseUrl }), {
    Location: `${req.baseUrl}/v1/volume/${kind.plural}/${created.uuid}`,
  });
}

export async function patchVolume<T extends VolumeItem>(
  kind: VolumeKind<T>,
  req: ApiRequest,
  ctx: ApiContext,
  uuid: string,
  parent?: string,
): Promise<ApiResponse> {
  checkPath(req, parent);
  const parsed = parseBody(req);
  rejectArgs(req, parsed);
  argUuid(`${kind.singular}_uuid`, uuid);
  validateSchema('patch', PATCH_SCHEMA, parsed ?? {});
  const patch = parsed as PatchOperation[];
  const store = kind.store(ctx);
  const item = await store.get(uuid);
  if (parent !== undefined) throw new OperationNotPermitted();
  checkPatchPaths(patch, kind.patchable);
  for (const value of patchValues(patch, '/node_uuid')) {
    if (typeof value !== 'string' || !isUuidLike(value)) throw new Invalid(`Expected a UUID for node_uuid, but received ${pyStr(value)}.`);
  }
  let node = await ctx.nodes.get(item.node_uuid);
  const patched = applyPatch({ ...(item.toData() as Record<string, unknown>) }, patch);
  if (patched.node_uuid !== undefined && patched.node_uuid !== node.uuid) node = await nodeByIdentity(ctx, String(patched.node_uuid));
  for (const key of Object.keys(patched)) if (!(key in (kind.schema.properties as object))) delete patched[key];
  validateVolume(kind as VolumeKind<VolumeItem>, 'patch', patched);
  patched.node_uuid = node.uuid;
  const changed = applyPatchedFields(
    item,
    patched,
    Object.keys(kind.schema.properties as object).filter((f) => f !== 'uuid'),
  );
  // The conductor's update_volume_*: under the node's lock, powered off only.
  node = await whenUnlocked(ctx, node);
  if (node.power_state !== POWER_OFF) {
    throw new InvalidStateRequested(`${kind.label} update`, node.uuid, node.power_state ?? 'None');
  }
  const saved = changed.length > 0 ? await store.save(item, { nodeUuid: node.uuid }) : item;
  ctx.log.info(`Volume ${kind.singular} updated`, { [kind.singular]: item.uuid, fields: changed });
  return json(200, kind.view(saved, { baseUrl: req.baseUrl }));
}

export async function deleteVolume<T extends VolumeItem>(
  kind: VolumeKind<T>,
  req: ApiRequest,
  ctx: ApiContext,
  uuid: string,
  parent?: string,
): Promise<ApiResponse> {
  checkPath(req, parent);
  NO_QUERY.read(req);
  argUuid(`${kind.singular}_uuid`, uuid);
  const store = kind.store(ctx);
  const item = await store.get(uuid);
  if (parent !== undefined) throw new OperationNotPermitted();
  // The conductor's destroy_volume_*: under the node's lock, powered off or in a state nodes are deleted in.
  const node = await whenUnlocked(ctx, await ctx.nodes.get(item.node_uuid));
  if (node.power_state !== POWER_OFF && !DELETE_ALLOWED_STATES.includes(node.provision_state)) {
    throw new InvalidStateRequested(`${kind.label} deletion`, node.uuid, node.power_state ?? 'None');
  }
  await store.destroy(item, { nodeUuid: node.uuid, orStates: DELETE_ALLOWED_STATES });
  ctx.log.info(`Volume ${kind.singular} deleted`, { [kind.singular]: item.uuid, node: node.uuid });
  return noContent();
}
