/**
 * RAID configuration through the API (1.12): `PUT /v1/nodes/{node}/states/raid` sets the node's
 * target RAID configuration, checked by its RAID interface (an empty one clears it, unchecked), and
 * `GET /v1/drivers/{driver}/raid/logical_disk_properties` says what a logical disk may have. The
 * configuration is built later, by a clean or deploy step of the RAID interface (agent RAID).
 *
 * Ironic sets the target in its conductor, in a synchronous call holding the node's lock; here the
 * API checks it and writes it in one conditional write (409 while the node is locked).
 */
import { InvalidParameterValue, NotAcceptable, NotFound, UnsupportedDriverExtension } from '#common/errors';
import { logicalDiskProperties } from '#drivers/raid';
import { loadDriver } from '#drivers/registry';
import { parseBody } from '../body';
import { requireServedDriver } from './drivers';
import type { ApiContext } from '../context';
import { type ApiRequest, type ApiResponse, json, noContent } from '../http';
import { checkConductorFor } from '../interfaces';
import { findNode, whenUnlocked } from '../lookup';
import { atLeast } from '../microversion';
import { pyStr } from '../pyrepr';
import { NO_QUERY } from '../request';
import { route } from '../route';

const RAID_VERSION = 12;

/** UnsupportedDriverExtension answered with a 404, as Ironic answers it for RAID (not every driver has it). */
class RaidNotSupported extends NotFound {}

export async function putRaid(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  const config = parseBody(req);
  if (config === null || typeof config !== 'object' || Array.isArray(config)) {
    throw new InvalidParameterValue(`Expected types <class 'dict'> for target_raid_config: ${pyStr(config ?? null)}`);
  }
  const found = await findNode(req, ctx, params.ident);
  if (!atLeast(req.version, RAID_VERSION)) throw new NotAcceptable('Request not acceptable.');
  await checkConductorFor(ctx, found.driver, found.conductor_group, found.uuid);
  const node = await whenUnlocked(ctx, found);
  const target = config as Record<string, unknown>;
  if (Object.keys(target).length > 0) {
    try {
      loadDriver(node).raid.validateRaidConfig({ node, log: ctx.log }, target);
    } catch (err) {
      if (err instanceof UnsupportedDriverExtension) throw new RaidNotSupported(err.message);
      throw err;
    }
  }
  node.target_raid_config = target;
  await ctx.nodes.save(node);
  ctx.log.info('Target RAID configuration set', {
    node: node.uuid,
    logicalDisks: (target.logical_disks as unknown[] | undefined)?.length ?? 0,
  });
  return noContent(204);
}

export async function getLogicalDiskProperties(req: ApiRequest, ctx: ApiContext, params: { name: string }): Promise<ApiResponse> {
  NO_QUERY.read(req);
  if (!atLeast(req.version, RAID_VERSION)) throw new NotAcceptable('Request not acceptable.');
  await requireServedDriver(ctx, params.name);
  return json(200, logicalDiskProperties());
}

export const RAID_ROUTES = [
  route('PUT', '/v1/nodes/:ident/states/raid', putRaid),
  route('GET', '/v1/drivers/:name/raid/logical_disk_properties', getLogicalDiskProperties),
];
