/**
 * `POST /v1/continue_inspection` (API 1.84; 1.1 too, for ironic-inspector's ramdisks): where a
 * ramdisk booted for in-band inspection posts the inventory it found. Open to the ramdisk like
 * lookup. The node is found as Ironic's `inspect_utils.lookup_node` finds it — by its ports' MACs,
 * by its UUID, or by the BMC address an inspection recorded — and must be waiting in `inspect
 * wait`; every failure is the same 404, so the endpoint discloses nothing about other nodes.
 *
 * Ironless inspects out of band only (redfish, fake): no inspect interface of its hardware types
 * waits for a ramdisk, so a node found here has nothing to take the data, and the answer is the
 * one Ironic gives for an inspect interface without in-band support.
 */
import { InvalidParameterValue, NotFound, ResourceNotFound, UnsupportedDriverExtension } from '#common/errors';
import { INSPECTWAIT } from '#common/states';
import { normalizeMac } from '#common/strutils';
import type { Node } from '#objects/node';
import { argUuid, collectArgs, rejectUnexpected } from '../args';
import { parseBody } from '../body';
import type { ApiContext } from '../context';
import { type ApiRequest, type ApiResponse } from '../http';
import { checkConductorFor } from '../interfaces';
import { portOwners } from '../lookup';
import { atLeast } from '../microversion';
import { route } from '../route';
import { type JsonSchema, validateSchema } from '../validation';

export const CONTINUE_INSPECTION_VERSION = 84;

/** Ironic's minimal acceptable inventory (ramdisk.py DATA_VALIDATOR). */
const DATA_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    inventory: {
      type: 'object',
      properties: {
        bmc_address: { type: 'string' },
        bmc_v6address: { type: 'string' },
        interfaces: {
          type: 'array',
          items: { type: 'object', properties: { mac_address: { type: 'string' } }, required: ['mac_address'], additionalProperties: true },
          minItems: 1,
        },
      },
      required: ['interfaces'],
      additionalProperties: true,
    },
  },
  required: ['inventory'],
  additionalProperties: true,
};

/** driver_internal_info key an in-band inspection records the BMC addresses under (Ironic's LOOKUP_CACHE_FIELD). */
const LOOKUP_CACHE_FIELD = 'lookup_bmc_addresses';

async function lookupNode(ctx: ApiContext, macs: readonly string[], bmcAddresses: readonly string[], nodeUuid?: string): Promise<Node> {
  let node: Node | undefined;
  try {
    if (nodeUuid !== undefined) node = await ctx.nodes.get(nodeUuid);
    if (macs.length > 0) {
      const owners = await portOwners(ctx, macs);
      const [only] = owners;
      if (owners.size === 1 && only !== undefined) {
        if (node !== undefined && node.uuid !== only) throw new ResourceNotFound();
        node ??= await ctx.nodes.get(only);
      }
    }
  } catch (err) {
    if (err instanceof NotFound) throw new ResourceNotFound();
    throw err;
  }
  if (node !== undefined && node.provision_state !== INSPECTWAIT) {
    ctx.log.warn('Inspection lookup found a node that is not waiting for inspection', { node: node.uuid, state: node.provision_state });
    throw new ResourceNotFound();
  }
  if (bmcAddresses.length > 0) {
    let marker: string | undefined;
    for (;;) {
      const page = await ctx.nodes.list({ provisionState: INSPECTWAIT }, { limit: 1000, marker });
      for (const candidate of page.nodes) {
        const cached = candidate.driver_internal_info[LOOKUP_CACHE_FIELD];
        if (!Array.isArray(cached) || !cached.some((a) => bmcAddresses.includes(String(a)))) continue;
        if (node !== undefined && candidate.uuid !== node.uuid) throw new ResourceNotFound();
        node = candidate;
      }
      if (!page.more || page.nodes.length === 0) break;
      marker = page.nodes[page.nodes.length - 1]?.uuid;
    }
  }
  if (node === undefined) throw new ResourceNotFound();
  return node;
}

async function continueInspection(req: ApiRequest, ctx: ApiContext): Promise<ApiResponse> {
  const args = collectArgs(req);
  const allowed = atLeast(req.version, CONTINUE_INSPECTION_VERSION) || req.version.minor === 1;
  if (!allowed || (args.has('node_uuid') && !atLeast(req.version, CONTINUE_INSPECTION_VERSION))) {
    throw new NotFound(`API version 1.${CONTINUE_INSPECTION_VERSION} or newer is required`);
  }
  rejectUnexpected(args, ['node_uuid']);
  const nodeUuid = argUuid('node_uuid', args.get('node_uuid'));
  const data = parseBody(req);
  validateSchema('data', DATA_SCHEMA, data);
  const inventory = (data as { inventory: { interfaces: { mac_address: string }[]; bmc_address?: string; bmc_v6address?: string } })
    .inventory;
  const macs = inventory.interfaces.map((i) => normalizeMac(i.mac_address.trim())).filter((m): m is string => m !== undefined);
  const bmcAddresses = [inventory.bmc_address, inventory.bmc_v6address].filter((a): a is string => !!a);
  if (macs.length === 0 && bmcAddresses.length === 0 && nodeUuid === undefined) {
    throw new InvalidParameterValue('No lookup information provided');
  }
  const node = await lookupNode(ctx, macs, bmcAddresses, nodeUuid);
  await checkConductorFor(ctx, node.driver, node.conductor_group, node.uuid, 400);
  throw new UnsupportedDriverExtension(node.driver, 'inspect');
}

export const CONTINUE_INSPECTION_ROUTES = [route('POST', '/v1/continue_inspection', continueInspection)];
