/**
 * The ramdisk endpoints (Ironic's `api/controllers/v1/ramdisk.py`): `GET /v1/lookup`, by which a
 * booted agent finds its node and gets its one-time token, and `POST /v1/heartbeat/{node_ident}`.
 * With fast track an agent may also look its node up where it waits between operations (an agent
 * left running after inspection or cleaning: enroll, manageable, available).
 *
 * Ironic asks the conductor for the token (`get_node_with_token`) and to check a heartbeat's token
 * (a synchronous call); here the API does both itself on the node item — issuing the token is one
 * conditional write, so two lookups racing never both get it — and casts the heartbeat's work to
 * the conductor over SQS. A node booted from an ISO the conductor built already holds the token
 * the ISO carries (`#drivers/agent/token`): its lookup answers "******".
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { type AgentConfig, loadAgentConfig } from '#common/config';
import { InvalidParameterValue, IronicError, NotFound, ResourceNotFound } from '#common/errors';
import { newUuid } from '#common/ids';
import * as st from '#common/states';
import { normalizeMac } from '#common/strutils';
import { fastTrackEnabled } from '#drivers/agent/deploy';
import { addSecretToken, isAgentTokenPregenerated, isAgentTokenPresent } from '#drivers/agent/token';
import type { Node } from '#objects/node';
import { arg, defineArgs, defineQuery } from '../request';
import type { ApiContext } from '../context';
import { type ApiRequest, type ApiResponse, json } from '../http';
import { findNode, portOwners } from '../lookup';
import { atLeast } from '../microversion';
import { route } from '../route';
import { nodeView } from '../views/node';
import { MASK } from '../views/sanitize';

class IncompleteLookup extends IronicError {
  static override readonly code: number = 400;
  constructor() {
    super("At least one of 'addresses' and 'node_uuid' parameters is required");
  }
}

/** States in which a ramdisk may look its node up (Ironic's LOOKUP_ALLOWED_STATES, with servicing). */
const LOOKUP_ALLOWED = [
  st.DEPLOYING,
  st.DEPLOYWAIT,
  st.CLEANING,
  st.CLEANWAIT,
  st.INSPECTING,
  st.INSPECTWAIT,
  st.RESCUING,
  st.RESCUEWAIT,
  st.SERVICING,
  st.SERVICEWAIT,
];
/** With fast track, also where an agent left running waits for what comes next (Ironic's FASTTRACK_LOOKUP_ALLOWED_STATES). */
const FAST_TRACK_LOOKUP_ALLOWED = [st.ENROLL, st.MANAGEABLE, st.AVAILABLE, ...LOOKUP_ALLOWED, st.SERVICEHOLD];
const AGENT_VALID_STATES = ['start', 'end', 'error'];

let agentConfig: AgentConfig | undefined;

/** Ironic's `lookup_allowed`: the node's state admits a lookup (more states with fast track). */
function lookupAllowed(node: Node): boolean {
  let fastTrack = false;
  try {
    fastTrack = fastTrackEnabled(node, (agentConfig ??= loadAgentConfig()));
  } catch {
    // An unreadable driver_info.fast_track: the states without fast track.
  }
  return (fastTrack ? FAST_TRACK_LOOKUP_ALLOWED : LOOKUP_ALLOWED).includes(node.provision_state);
}

/** 1.22: the ramdisk endpoints exist; below, they are "not found". */
function checkRamdiskVersion(req: ApiRequest): void {
  if (!atLeast(req.version, 22)) throw new ResourceNotFound();
}

function config(ctx: ApiContext, token: string | null): Record<string, unknown> {
  return {
    metrics: { backend: 'noop', prepend_host: false, prepend_uuid: false, prepend_host_reverse: true, global_prefix: null },
    metrics_statsd: { statsd_host: 'localhost', statsd_port: 8125 },
    heartbeat_timeout: ctx.config.heartbeatTimeoutSeconds,
    agent_token: token,
    agent_token_required: true,
    disable_deep_image_inspection: false,
    permitted_image_formats: ['raw', 'qcow2', 'iso'],
  };
}

async function nodeByAddresses(ctx: ApiContext, addresses: readonly string[]): Promise<Node> {
  const owners = await portOwners(ctx, addresses);
  // No port, or ports of different nodes: Ironic's get_by_port_addresses finds no single node.
  const [only] = owners;
  if (owners.size !== 1 || only === undefined) throw new ResourceNotFound();
  return ctx.nodes.get(only);
}

/**
 * The token for this lookup (Ironic's get_node_with_token): issued once, in one conditional write,
 * and "******" whenever the node holds one already — issued to an earlier lookup, or pregenerated
 * onto the virtual media ISO's kernel command line, where the agent has it from.
 */
export async function issueToken(ctx: ApiContext, node: Node): Promise<string> {
  if (isAgentTokenPresent(node)) {
    if (!isAgentTokenPregenerated(node)) ctx.log.warn('An agent token was asked for, but one is already present', { node: node.uuid });
    return MASK;
  }
  const token = addSecretToken(node);
  await ctx.nodes.save(node);
  return token;
}

/**
 * Compare a token with the stored one in constant time (as Ironic's `secretutils.constant_time_compare`):
 * both are hashed first, so neither their contents nor their lengths show in the time it takes.
 */
function sameSecret(given: string, stored: unknown): boolean {
  if (typeof stored !== 'string' || stored === '') return false;
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(stored));
}

const LookupQuery = defineQuery({ addresses: arg.string(), node_uuid: arg.uuidAsGiven() });
/** The heartbeat's arguments, from the query and the JSON body's keys; a null callback_url is missing. */
const HeartbeatArgs = defineArgs({
  callback_url: arg.string().required({ null: 'missing' }),
  agent_version: arg.string(),
  agent_token: arg.string(),
  agent_verify_ca: arg.string(),
  agent_status: arg.string(),
  agent_status_message: arg.string(),
});

export async function lookup(req: ApiRequest, ctx: ApiContext): Promise<ApiResponse> {
  checkRamdiskVersion(req);
  const { addresses: rawAddresses, node_uuid: nodeUuid } = LookupQuery.read(req);
  const addresses = [
    ...new Set(
      (rawAddresses ?? '')
        .split(',')
        .map((a) => normalizeMac(a.trim()))
        .filter((a): a is string => a !== undefined),
    ),
  ];
  if (addresses.length === 0 && nodeUuid === undefined) throw new IncompleteLookup();
  // Each address costs a read: an unauthenticated request may not ask for unbounded work. A node
  // UUID, when given, is what the lookup uses, and then the addresses are not read at all.
  if (nodeUuid === undefined && addresses.length > ctx.config.maxLookupAddresses) {
    throw new InvalidParameterValue(
      `Too many addresses for a lookup: ${addresses.length} distinct MAC addresses were given, at most ${ctx.config.maxLookupAddresses} are accepted. Give node_uuid, or fewer addresses.`,
    );
  }
  let node: Node;
  try {
    node = nodeUuid !== undefined ? await ctx.nodes.get(nodeUuid) : await nodeByAddresses(ctx, addresses);
  } catch (err) {
    // The same answer whether the node does not exist or may not be looked up (Ironic hides which).
    if (err instanceof NotFound) throw new ResourceNotFound();
    throw err;
  }
  if (!lookupAllowed(node)) {
    ctx.log.warn('Lookup is not allowed for the node in its state', { node: node.uuid, state: node.provision_state });
    throw new ResourceNotFound();
  }
  const token = atLeast(req.version, 62) ? await issueToken(ctx, node) : null;
  return json(200, ramdiskNodeView(req, ctx, node, token));
}

/** What a ramdisk is told about its node (Ironic's ramdisk `convert_with_links`): lookup's and continue_inspection's answer. */
export function ramdiskNodeView(req: ApiRequest, ctx: ApiContext, node: Node, token: string | null): Record<string, unknown> {
  const view = nodeView(node, {
    baseUrl: req.baseUrl,
    version: req.version,
    fields: ['uuid', 'properties', 'instance_info', 'driver_internal_info'],
  });
  return { node: view, config: config(ctx, token) };
}

export async function heartbeat(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  checkRamdiskVersion(req);
  const {
    callback_url: callbackUrl,
    agent_version: agentVersion,
    agent_token: agentToken,
    agent_verify_ca: verifyCa,
    agent_status: agentStatus,
    agent_status_message: statusMessage,
  } = HeartbeatArgs.read(req);
  if (agentVersion && !atLeast(req.version, 36)) throw new InvalidParameterValue('Field "agent_version" not recognised');
  if ((agentStatus || statusMessage) && !atLeast(req.version, 72)) {
    throw new InvalidParameterValue('Fields "agent_status" and "agent_status_message" not recognised.');
  }
  if (verifyCa !== undefined && !atLeast(req.version, 68))
    throw new InvalidParameterValue('Field "agent_verify_ca" not recognised in this version');
  const node = await findNode(req, ctx, params.ident, true);
  const known = node.driver_internal_info.agent_url;
  if (known !== undefined && known !== null && known !== callbackUrl) {
    ctx.log.error('Heartbeat with a different callback URL', { node: node.uuid, url: callbackUrl });
    throw new InvalidParameterValue('Detected change in ramdisk provided "callback_url"');
  }
  if (agentToken === undefined) throw new InvalidParameterValue('Agent token is required for heartbeat processing.');
  if (agentStatus !== undefined && !AGENT_VALID_STATES.includes(agentStatus)) {
    throw new InvalidParameterValue(`Agent status is invalid. Valid states are ${AGENT_VALID_STATES.join(',')}.`);
  }
  // The conductor's synchronous checks of Ironic's heartbeat call, done here.
  if (agentVersion === undefined && agentStatus === undefined) {
    throw new InvalidParameterValue('Agent did not transmit a version, and a version is required. Please update the agent being used.');
  }
  if (!sameSecret(agentToken, node.driver_internal_info.agent_secret_token)) {
    ctx.log.error('Invalid or missing agent_token received', { node: node.uuid });
    throw new InvalidParameterValue('Invalid or missing agent token received.');
  }
  // Ironic's store_agent_certificate: the certificate the agent gave first is the one it keeps.
  const knownCa = node.driver_internal_info.agent_verify_ca;
  if (verifyCa !== undefined && typeof knownCa === 'string' && knownCa.trim() !== verifyCa.trim()) {
    ctx.log.error('Content mismatch for agent_verify_ca', { node: node.uuid });
    throw new InvalidParameterValue('Detected change in ramdisk provided "agent_verify_ca"');
  }
  const message = ctx.rpc.message(
    'heartbeat',
    {
      node_id: node.uuid,
      callback_url: callbackUrl,
      agent_version: agentVersion ?? null,
      agent_verify_ca: verifyCa ?? null,
      agent_status: agentStatus ?? null,
    },
    { request_id: req.requestId },
    newUuid(),
  );
  await ctx.rpc.cast(node.conductor_group, message);
  return { status: 202, headers: {} };
}

export const RAMDISK_ROUTES = [route('GET', '/v1/lookup', lookup), route('POST', '/v1/heartbeat/:ident', heartbeat)];
