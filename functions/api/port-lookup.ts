/**
 * Finding ports' and portgroups' parents and portgroups themselves, as Ironic 21.4 does
 * (api_utils.get_rpc_portgroup, check_port_list_policy, the controllers' `_lookup`).
 */
import { Invalid, InvalidUuidOrName, NodeNotFound, PortgroupNotFound, httpErrors, withStatus } from '#common/errors';
import { isOsloUuidLike, isUuidLike } from '#common/ids';
import type { Node } from '#objects/node';
import type { Port } from '#objects/port';
import { argUuid, argUuidOrName } from './args';
import type { Portgroup } from '#objects/portgroup';
import type { ApiContext } from './context';
import type { ApiRequest } from './http';
import { atLeast } from './microversion';
import { isValidLogicalName } from './names';
import { PORT_NAME_VERSION } from './schemas/port';

/**
 * The port `/v1/ports/{port}` names. From 1.88 a UUID or a port's name (Ironic's `uuid_or_name`
 * check of `port_ident`); below, a UUID (`port_uuid`), as Ironic 21.4 and the 2026.3 release check it.
 */
export async function findPort(req: ApiRequest, ctx: ApiContext, ident: string): Promise<Port> {
  checkPortIdent(req, ident);
  return isUuidLike(ident) ? ctx.stores.ports.get(ident) : ctx.stores.ports.getByName(ident);
}

/** The check of `findPort`'s ident alone, for handlers that check their arguments first. */
export function checkPortIdent(req: ApiRequest, ident: string): void {
  if (!atLeast(req.version, PORT_NAME_VERSION)) argUuid('port_uuid', ident);
  else argUuidOrName('port_ident', ident);
}

/**
 * The routing checks of `/v1/portgroups/{ident}/…`: below 1.23 the path does not exist, and an
 * ident that can be neither a UUID nor a name is a 400 (both in webob's form).
 */
export function checkPortgroupPath(req: ApiRequest, ident: string): void {
  if (!atLeast(req.version, 23)) throw httpErrors.notFound();
  argUuidOrName('portgroup', ident, httpErrors.badRequest);
}

/** A portgroup by UUID or logical name; with `withSuffix`, a stripped ".json" is tried too. */
export async function findPortgroup(req: ApiRequest, ctx: ApiContext, ident: string, withSuffix = false): Promise<Portgroup> {
  const get = (id: string): Promise<Portgroup> => {
    if (isOsloUuidLike(id)) return ctx.stores.portgroups.get(id);
    if (isValidLogicalName(id, req.version)) return ctx.stores.portgroups.getByName(id);
    throw new InvalidUuidOrName(id);
  };
  try {
    return await get(ident);
  } catch (err) {
    if (!(err instanceof PortgroupNotFound) || !withSuffix || !req.jsonSuffix) throw err;
    return get(`${ident}.json`);
  }
}

/**
 * The parent of a nested list (Ironic's check_port_list_policy): a parent portgroup is looked up
 * by UUID only, a parent node by UUID only, and a parent node that is not found is reported as
 * "Portgroup <parent portgroup> could not be found." (404). NOTE: this is Ironic 21.4's behaviour:
 * names do not work in `/v1/nodes/{node}/ports`, `/v1/nodes/{node}/portgroups` and
 * `/v1/portgroups/{portgroup}/ports`; clients use UUIDs there.
 * Returns the parent node's UUID.
 */
export async function checkListParent(
  ctx: ApiContext,
  parentNode: string | undefined,
  parentPortgroup: string | undefined,
): Promise<string | undefined> {
  if (parentPortgroup !== undefined) {
    if (!isOsloUuidLike(parentPortgroup)) throw new PortgroupNotFound(parentPortgroup);
    const pg = await ctx.stores.portgroups.get(parentPortgroup);
    return pg.node_uuid;
  }
  if (parentNode === undefined) return undefined;
  try {
    if (!isOsloUuidLike(parentNode)) throw new NodeNotFound(parentNode);
    return (await ctx.nodes.get(parentNode)).uuid;
  } catch (err) {
    if (err instanceof NodeNotFound) throw new PortgroupNotFound('None');
    throw err;
  }
}

/** The node a body names by `node_uuid` (Ironic's replace_node_uuid_with_id): not found is a 400. */
export async function nodeOfBody(ctx: ApiContext, uuid: string): Promise<Node> {
  try {
    return await ctx.nodes.get(uuid);
  } catch (err) {
    if (err instanceof NodeNotFound) throw withStatus(new NodeNotFound(uuid), 400);
    throw err;
  }
}

/** Ironic's objects.Node.get: an int or a UUID, else "Expected a UUID or int but received x." */
export async function nodeByIdentity(ctx: ApiContext, ident: string): Promise<Node> {
  if (!isOsloUuidLike(ident)) throw new Invalid(`Expected a UUID or int but received ${ident}.`);
  try {
    return await ctx.nodes.get(ident);
  } catch (err) {
    if (err instanceof NodeNotFound) throw withStatus(new NodeNotFound(ident), 400);
    throw err;
  }
}
