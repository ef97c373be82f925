/**
 * `POST /v1/continue_inspection` (API 1.84; 1.1 too, for ironic-inspector's ramdisks, which is how
 * IPA posts): where a ramdisk booted for in-band inspection posts the inventory it found. Open to
 * the ramdisk like lookup. The node is found as Ironic's `inspect_utils.lookup_node` finds it — by
 * its ports' MACs, by its UUID, or by the BMC address an inspection recorded — and must be waiting
 * in `inspect wait`; every failure is the same 404, so the endpoint discloses nothing about other
 * nodes.
 *
 * What Ironic's conductor does inside its synchronous `continue_inspection` call is done here in
 * one conditional write — the node moves to `inspecting` (`resume`) locked for the message — and
 * the processing is cast to the conductor (RPC 1.2), so the ramdisk is answered 202 at once. A node
 * locked meanwhile is a 409 (IPA retries). From 1.84 the ramdisk is given its agent token first and
 * the answer is lookup's; at 1.1 it is `{"uuid": …}`.
 *
 * The ramdisk's `logs` never travel with the inventory (Ironic stores them apart): they are staged
 * in the ramdisk logs bucket and the cast names them (`logs_key`), for the conductor to keep under
 * Ironic's name when the inspection's outcome calls for it (`#drivers/agent/ramdisk-logs`). What
 * remains must fit one cast (256 KiB): larger is a 413.
 *
 * A service pinned below RPC 1.2 cannot hand the data to a conductor: a node waiting for it is
 * answered 503 (IPA retries a 5xx a few times; during an upgrade's weighted phase a retry may reach
 * an unpinned version). Such a service never starts an in-band inspection (`node-states.ts`).
 */
import {
  InvalidParameterValue,
  NotFound,
  RequestEntityTooLarge,
  ResourceNotFound,
  TemporaryFailure,
  UnsupportedDriverExtension,
} from '#common/errors';
import { INSPECTWAIT } from '#common/states';
import { normalizeMac } from '#common/strutils';
import { stageInspectionLogs } from '#drivers/agent/ramdisk-logs';
import { LOOKUP_CACHE_FIELD } from '#drivers/inspector/agent';
import { loadDriver } from '#drivers/registry';
import type { Node } from '#objects/node';
import { MAX_CAST_BYTES } from '#rpc/client';
import { METHOD_VERSIONS } from '#rpc/messages';
import { beginAndCast } from '../begin';
import { parseBody } from '../body';
import { arg, defineQuery } from '../request';
import type { ApiContext } from '../context';
import { type ApiRequest, type ApiResponse, json } from '../http';
import { checkConductorFor } from '../interfaces';
import { portOwners } from '../lookup';
import { atLeast } from '../microversion';
import { route } from '../route';
import { type JsonSchema, validateSchema } from '../validation';
import { issueToken, ramdiskNodeView } from './ramdisk';

export const CONTINUE_INSPECTION_VERSION = 84;

/** Ironic's minimal acceptable inventory (ramdisk.py DATA_VALIDATOR). */
const DATA_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    inventory: {
      type: 'object',
      properties: {
        // Null when IPA does not detect a BMC (Ironic accepts it since 2024.2).
        bmc_address: { type: ['string', 'null'] },
        bmc_v6address: { type: ['string', 'null'] },
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

/** Room in a cast for its envelope beside the data (ids, method, context). */
const MESSAGE_OVERHEAD_BYTES = 2048;

type Inventory = { interfaces: { mac_address: string }[]; bmc_address?: string | null; bmc_v6address?: string | null } & Record<
  string,
  unknown
>;

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
    // One BMC address may serve several nodes (a Redfish service with many systems): a node found
    // otherwise must be among them; found by the BMC alone, it must be the only one.
    const byBmc = new Map<string, Node>();
    let marker: string | undefined;
    for (;;) {
      const page = await ctx.nodes.list({ provisionState: INSPECTWAIT }, { limit: 1000, marker });
      for (const candidate of page.nodes) {
        const cached = candidate.driver_internal_info[LOOKUP_CACHE_FIELD];
        if (Array.isArray(cached) && cached.some((a) => bmcAddresses.includes(String(a)))) byBmc.set(candidate.uuid, candidate);
      }
      if (!page.more || page.nodes.length === 0) break;
      marker = page.nodes[page.nodes.length - 1]?.uuid;
    }
    if (node !== undefined && byBmc.size > 0 && !byBmc.has(node.uuid)) throw new ResourceNotFound();
    if (node === undefined && byBmc.size > 1) {
      ctx.log.error('Several nodes satisfy the BMC address(es) but none the MAC addresses: ports must be created', {
        nodes: [...byBmc.keys()],
      });
      throw new ResourceNotFound();
    }
    node ??= [...byBmc.values()][0];
  }
  if (node === undefined) throw new ResourceNotFound();
  return node;
}

const ContinueQuery = defineQuery({ node_uuid: arg.uuidAsGiven() });

async function continueInspection(req: ApiRequest, ctx: ApiContext): Promise<ApiResponse> {
  const allowed = atLeast(req.version, CONTINUE_INSPECTION_VERSION) || req.version.minor === 1;
  if (!allowed || (req.query.node_uuid !== undefined && !atLeast(req.version, CONTINUE_INSPECTION_VERSION))) {
    throw new NotFound(`API version 1.${CONTINUE_INSPECTION_VERSION} or newer is required`);
  }
  const { node_uuid: nodeUuid } = ContinueQuery.read(req);
  const data = parseBody(req);
  validateSchema('data', DATA_SCHEMA, data);
  const { inventory, ...pluginData } = data as { inventory: Inventory } & Record<string, unknown>;
  const macs = inventory.interfaces.map((i) => normalizeMac(i.mac_address.trim())).filter((m): m is string => m !== undefined);
  const bmcAddresses = [inventory.bmc_address, inventory.bmc_v6address].filter((a): a is string => !!a);
  if (macs.length === 0 && bmcAddresses.length === 0 && nodeUuid === undefined) {
    throw new InvalidParameterValue('No lookup information provided');
  }
  const node = await lookupNode(ctx, macs, bmcAddresses, nodeUuid);
  await checkConductorFor(ctx, node.driver, node.conductor_group, node.uuid, 400);
  if (loadDriver(node).inspect.inBand === undefined) throw new UnsupportedDriverExtension(node.driver, 'inspect');
  if (!ctx.rpc.canSend('continue_inspection')) {
    throw new TemporaryFailure(
      `Inspection data for node ${node.uuid} cannot be processed while this service is pinned to release ${ctx.release.release} (RPC ${ctx.rpc.versionCap}; continue_inspection needs ${METHOD_VERSIONS.continue_inspection}). Retry later.`,
    );
  }
  const logs = pluginData.logs;
  delete pluginData.logs;
  const size = Buffer.byteLength(JSON.stringify({ inventory, plugin_data: pluginData }));
  if (size > MAX_CAST_BYTES - MESSAGE_OVERHEAD_BYTES) {
    throw new RequestEntityTooLarge(
      `The inspection data of node ${node.uuid} is ${size} bytes without its logs; Ironless takes at most ${MAX_CAST_BYTES - MESSAGE_OVERHEAD_BYTES}.`,
    );
  }
  const logsKey = await stageInspectionLogs(node.uuid, logs, ctx.log);
  // Ironic gives the token before processing starts: processing holds the node's lock.
  const token = atLeast(req.version, CONTINUE_INSPECTION_VERSION) ? await issueToken(ctx, node) : null;
  const answer = token === null ? { uuid: node.uuid } : ramdiskNodeView(req, ctx, node, token);
  await beginAndCast(
    req,
    ctx,
    node,
    (n) => n.processEvent('resume'),
    'continue_inspection',
    (lock_token) => ({ node_id: node.uuid, lock_token, inventory, plugin_data: pluginData, ...(logsKey ? { logs_key: logsKey } : {}) }),
  );
  return json(202, answer);
}

export const CONTINUE_INSPECTION_ROUTES = [route('POST', '/v1/continue_inspection', continueInspection)];
