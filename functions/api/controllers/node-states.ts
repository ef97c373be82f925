/**
 * `/v1/nodes/{node}/states` and `/states/provision` (Ironic's NodeStatesController).
 *
 * A provision request is begun here and finished by the conductor. The API checks the verb against
 * the state machine, then in one conditional write moves the node to the verb's first state (e.g.
 * available → deploying), clears last_error and locks it for the conductor — the part Ironic's
 * conductor does inside its synchronous RPC call — and then casts the work over SQS. So a client
 * polling right after the 202 already sees the new state, and no other request can slip in before
 * the conductor takes over. Should the message never be handled, the lock expires and the node's
 * stuck state is failed, as Ironic fails the states a dead conductor leaves behind.
 */
import {
  ClientSideError,
  InvalidParameterValue,
  InvalidStateRequested,
  NodeInMaintenance,
  NodeIsRetired,
  NotAcceptable,
  InvalidState,
  NodeProtected,
} from '#common/errors';
import * as st from '#common/states';
import type { Node } from '#objects/node';
import type { RpcMethod, RpcMethods } from '#rpc/messages';
import { beginAndCast } from '../begin';
import { checkConductorFor } from '../interfaces';
import { checkInBandInspection } from '../inspection';
import { CLEAN_STEPS_SCHEMA, DEPLOY_STEPS_SCHEMA, SERVICE_STEPS_SCHEMA } from '../schemas/steps';
import { type JsonSchema, schemaErrorText } from '../validation';
import { pyTruthy } from '../pyrepr';
import { arg, defineBody } from '../request';
import { runbookSteps } from '../runbook-use';
import { route } from '../route';
import type { ApiContext } from '../context';
import { type ApiRequest, type ApiResponse, json } from '../http';
import { findNode, isLocked, whenUnlocked } from '../lookup';
import { type ApiVersion, atLeast } from '../microversion';
import { isoTime } from '../views/time';

/** Minimum minor version of each verb (Ironic's MIN_VERB_VERSIONS). */
const VERB_VERSIONS: Readonly<Record<string, number>> = {
  manage: 4,
  provide: 4,
  inspect: 6,
  abort: 13,
  clean: 15,
  adopt: 17,
  rescue: 38,
  unrescue: 38,
  deploy: 73,
  undeploy: 73,
  unhold: 85,
  service: 87,
};

export async function getStates(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  const node = await findNode(req, ctx, params.ident);
  const body: Record<string, unknown> = {
    console_enabled: node.console_enabled,
    last_error: node.last_error,
    power_state: node.power_state,
    provision_state: node.provision_state === st.AVAILABLE && !atLeast(req.version, 2) ? null : node.provision_state,
    target_power_state: node.target_power_state,
    target_provision_state: node.target_provision_state,
    provision_updated_at: isoTime(node.provision_updated_at),
  };
  if (atLeast(req.version, 12)) {
    body.raid_config = node.raid_config ?? {};
    body.target_raid_config = node.target_raid_config ?? {};
  }
  if (atLeast(req.version, 75)) {
    body.boot_mode = node.boot_mode;
    body.secure_boot = node.secure_boot;
  }
  return json(200, body);
}

/** Ironic lets an empty step list through where its checks read `if steps and …`. */
const hasSteps = (steps: unknown): boolean => Array.isArray(steps) && steps.length > 0;

/** The body of `PUT /states/provision` (Ironic's NodeStatesController.provision arguments). */
const ProvisionRequest = defineBody({
  target: arg.string().required(),
  configdrive: arg.types<ConfigDrive>(['NoneType', 'dict', 'str'], 'repr'),
  clean_steps: arg.types<unknown[] | null>(['NoneType', 'list']),
  deploy_steps: arg
    .types<unknown[] | null>(['NoneType', 'list'])
    .since(69, (steps) =>
      hasSteps(steps) ? new NotAcceptable('Request not acceptable. The minimal required API version should be 1.69') : undefined,
    ),
  rescue_password: arg.string(),
  // Its version depends on the verb (clean 1.70, service 1.108): checkDisableRamdisk.
  disable_ramdisk: arg.boolean(),
  service_steps: arg.types<unknown[] | null>(['NoneType', 'list']),
  // A runbook's name or UUID (1.92) instead of clean_steps or service_steps; null reads as absent.
  runbook: arg
    .types<string | null>(['NoneType', 'str'])
    .since(92, (runbook) => (runbook ? new NotAcceptable('Request not acceptable.') : undefined)),
});
type ConfigDrive = string | Record<string, unknown> | null;

const CONFIGDRIVE_SCHEMA = {
  anyOf: [
    {
      type: 'object',
      properties: {
        meta_data: { type: 'object' },
        network_data: { type: 'object' },
        user_data: { type: ['object', 'array', 'string', 'null'] },
        vendor_data: { type: 'object' },
      },
      additionalProperties: false,
    },
    { type: ['string', 'null'] },
  ],
};
/** base64's letters, and the whitespace common in base64 values. */
const BASE64_TEXT = /^[A-Za-z0-9+/=\n\r\t ]*$/;

/** Ironic's check_allow_configdrive: where a configdrive may be given, and in which forms. */
function checkConfigdrive(version: ApiVersion, target: string, configdrive: unknown): void {
  if (!pyTruthy(configdrive)) return;
  const allowed = [st.ACTIVE, ...(atLeast(version, 35) ? ['rebuild'] : [])];
  if (!allowed.includes(target)) {
    throw new ClientSideError(`Adding a config drive is only supported when setting provision state to ${allowed.join(', ')}`);
  }
  const invalid = schemaErrorText(CONFIGDRIVE_SCHEMA, configdrive);
  if (invalid !== undefined) throw new ClientSideError(`Invalid configdrive format: ${invalid}`);
  if (typeof configdrive === 'object') {
    if (!atLeast(version, 56))
      throw new ClientSideError('Providing a JSON object for configdrive is only supported starting with API version 1.56');
    if ('vendor_data' in (configdrive as object) && !atLeast(version, 59))
      throw new ClientSideError('Providing vendor_data in configdrive is only supported starting with API version 1.59');
  } else if (typeof configdrive === 'string' && !configdrive.includes('://') && !BASE64_TEXT.test(configdrive)) {
    // ':' is no base64 letter, so a URL is told apart from an encoded image by '://'.
    throw new ClientSideError('Invalid configdrive format: it is neither a JSON, nor a URL, nor a base64 string');
  }
}

export async function setProvisionState(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  const body = ProvisionRequest.read(req);
  let node = await findNode(req, ctx, params.ident);
  const target = body.target;
  const minimum = VERB_VERSIONS[target];
  if (minimum !== undefined && !atLeast(req.version, minimum)) throw new NotAcceptable('Request not acceptable.');
  if ((target === st.ACTIVE || target === 'rebuild' || target === 'deploy') && node.maintenance) {
    throw new NodeInMaintenance('provisioning', node.uuid);
  }
  const event = (st.VERBS[target] ?? target) as st.ProvisionEvent;
  if (!st.isAllowed(node.provision_state, event)) {
    // The conductor takes the lock before it looks at the state: a node finishing a flow may allow it after.
    if (!isLocked(node)) throw new InvalidStateRequested(target, node.uuid, node.provision_state);
    node = await whenUnlocked(ctx, node);
    if (!st.isAllowed(node.provision_state, event)) throw new InvalidStateRequested(target, node.uuid, node.provision_state);
  }
  checkConfigdrive(req.version, target, body.configdrive);
  // A runbook's steps (and its disable_ramdisk) stand in for the request's.
  const fromRunbook = body.runbook
    ? await runbookSteps(req, ctx, node, event, body.runbook, { cleanSteps: body.clean_steps, serviceSteps: body.service_steps })
    : undefined;
  const cleanSteps = fromRunbook?.cleanSteps ?? body.clean_steps;
  const serviceSteps = fromRunbook?.serviceSteps ?? body.service_steps;
  const disableRamdisk = fromRunbook ? fromRunbook.disableRamdisk : body.disable_ramdisk === true;
  // A runbook's disable_ramdisk replaces the request's (checked with the runbook), as in Ironic.
  if (!fromRunbook) checkDisableRamdisk(req.version, target, body.disable_ramdisk);
  if (body.clean_steps !== undefined && body.clean_steps !== null && event !== 'clean') {
    throw new ClientSideError('"clean_steps" is only valid when setting target provision state to clean');
  }
  const deploySteps = checkDeploySteps(target, body.deploy_steps);
  if (body.rescue_password !== undefined && event !== 'rescue') {
    throw new ClientSideError('"rescue_password" is only valid when setting target provision state to rescue');
  }
  if (body.service_steps !== undefined && body.service_steps !== null && event !== 'service') {
    throw new ClientSideError('"service_steps" is only valid when setting target provision state to service');
  }
  // Abort from `wait call-back` came with 1.110 (Ironic's allow_deploy_abort).
  if (event === 'abort' && node.provision_state === st.DEPLOYWAIT && !atLeast(req.version, 110)) {
    throw new NotAcceptable('Request not acceptable.');
  }
  node = await whenUnlocked(ctx, node);
  if (node.protected && (event === 'rebuild' || event === 'delete')) throw new NodeProtected(node.uuid);
  // Ironic's _do_provision_action asks for the node's conductor first: NoValidHost stays a 404.
  await checkConductorFor(ctx, node.driver, node.conductor_group, node.uuid, undefined);

  // Ironic clears last_error when a verb starts work in the conductor (its process_event with a
  // callback); a plain state change (manage from available or clean failed, unhold) keeps it.
  const keepLastError = event === 'unhold' || (event === 'manage' && node.provision_state !== st.ENROLL);
  const begin = (change?: (n: Node) => void) => (n: Node) => {
    // A manual clean leads back to manageable (Ironic's target_state for it), not to available.
    n.processEvent(event, event === 'clean' ? st.MANAGEABLE : undefined);
    if (!keepLastError) n.last_error = null;
    change?.(n);
  };
  const cast = <M extends RpcMethod>(method: M, args: Omit<RpcMethods[M], 'lock_token' | 'node_id'>, change?: (n: Node) => void) =>
    beginAndCast(
      req,
      ctx,
      node,
      begin(change),
      method,
      (lock_token) => ({ node_id: node.uuid, lock_token, ...args }) as unknown as RpcMethods[M],
    );

  switch (event) {
    case 'deploy':
    case 'rebuild':
      await cast('do_node_deploy', { rebuild: event === 'rebuild', ...(deploySteps ? { deploy_steps: deploySteps } : {}) }, (n) => {
        // Ironic's do_node_deploy stores a configdrive only when there is one (an object as it came:
        // the conductor builds the image when it hands it to the agent).
        if (pyTruthy(body.configdrive)) n.instance_info = { ...n.instance_info, configdrive: body.configdrive };
      });
      break;
    case 'delete':
      await cast('do_node_tear_down', {});
      break;
    case 'manage':
      if (node.provision_state === st.ENROLL) {
        await cast('do_provisioning_action', { action: 'manage' });
      } else {
        // available, clean failed, … → manageable: a state change only, nothing for a conductor to do.
        begin()(node);
        await ctx.nodes.save(node);
      }
      break;
    case 'provide':
      // Refused by Ironic's conductor inside its synchronous RPC call (do_provisioning_action).
      if (node.retired) throw new NodeIsRetired('providing', node.uuid);
      await cast('do_provisioning_action', { action: event });
      break;
    case 'inspect':
      checkInBandInspection(ctx, node);
      await cast('do_provisioning_action', { action: event });
      break;
    case 'adopt':
      await cast('do_provisioning_action', { action: event });
      break;
    case 'unrescue':
      if (node.maintenance) throw new NodeInMaintenance('unrescuing', node.uuid);
      await cast('do_provisioning_action', { action: event });
      break;
    case 'rescue': {
      const password = typeof body.rescue_password === 'string' ? body.rescue_password : '';
      if (password.trim() === '')
        throw new ClientSideError('A non-empty "rescue_password" is required when setting target provision state to rescue');
      if (node.maintenance) throw new NodeInMaintenance('rescuing', node.uuid);
      await cast('do_provisioning_action', { action: 'rescue' }, (n) => {
        n.instance_info = { ...n.instance_info, rescue_password: password };
      });
      break;
    }
    case 'clean': {
      const steps = checkCleanSteps(cleanSteps);
      if (node.maintenance) throw new NodeInMaintenance('cleaning', node.uuid);
      await cast('do_node_clean', { clean_steps: steps, ...(disableRamdisk ? { disable_ramdisk: true } : {}) });
      break;
    }
    case 'service': {
      const steps = checkServiceSteps(serviceSteps);
      if (node.maintenance) throw new NodeInMaintenance('service', node.uuid);
      await cast('do_node_service', { service_steps: steps, ...(disableRamdisk ? { disable_ramdisk: true } : {}) });
      break;
    }
    case 'unhold':
      // hold → wait; the conductor continues the flow with the step after the hold.
      await cast('do_provisioning_action', { action: 'unhold' });
      break;
    case 'abort': {
      const field = st.ABORTABLE_STEP_FIELD[node.provision_state];
      const step = field === undefined ? null : node[field];
      if (field !== undefined && step !== null && typeof step.step === 'string' && step.abortable !== true) {
        // Ironic's _do_abort: a step that may not be stopped is flagged; the conductor aborts the
        // flow once it has finished. The conditional write fails if a heartbeat took the node.
        if (step.abort_after !== true) {
          node[field] = { ...step, abort_after: true };
          await ctx.nodes.save(node);
        }
        ctx.log.info('The current step is not abortable; the operation is aborted after it', { node: node.uuid, step: step.step });
        break;
      }
      if (node.provision_state === st.SERVICEFAIL && node.maintenance) {
        throw new InvalidState(
          `Can not abort service on node "${node.uuid}" while it is in maintenance mode. Please remove the node from maintenance prior to issuing the request to abort the service operation.`,
        );
      }
      const error = abortError(node);
      // Servicing aborted while waiting ends where an abort from service failed does (Ironic
      // 2025.2): active, the conductor booting the instance again.
      const onToActive = node.provision_state === st.SERVICEWAIT || node.provision_state === st.SERVICEHOLD;
      await cast('do_provisioning_action', { action: 'abort' }, (n) => {
        if (onToActive) n.processEvent('abort');
        n.last_error = error;
      });
      break;
    }
    default:
      throw new InvalidParameterValue(`The requested action "${target}" is not available in this version of Ironless.`);
  }
  return { status: 202, headers: { Location: `${req.baseUrl}/v1/nodes/${params.ident}/states` } };
}

/**
 * Ironic's check_allow_disable_ramdisk: manual cleaning takes disable_ramdisk from 1.70, servicing
 * from 1.108 (406 below); any other verb is refused (400).
 */
export function checkDisableRamdisk(version: ApiVersion, target: string, disableRamdisk: boolean | null | undefined): void {
  if (disableRamdisk === undefined || disableRamdisk === null) return;
  const minimum = target === 'clean' ? 70 : target === 'service' ? 108 : undefined;
  if (minimum === undefined) throw new ClientSideError('disable_ramdisk is supported only with manual cleaning or servicing');
  if (!atLeast(version, minimum)) throw new NotAcceptable('disable_ramdisk is not acceptable in this API version');
}

/** Ironic's last_error for an aborted operation, naming the step it was in. */
function abortError(node: Node): string | null {
  switch (node.provision_state) {
    case st.CLEANWAIT:
    case st.CLEANHOLD:
      return st.abortedByRequest('clean', node.clean_step);
    case st.DEPLOYWAIT:
    case st.DEPLOYHOLD:
      return st.abortedByRequest('deploy', node.deploy_step);
    case st.SERVICEWAIT:
    case st.SERVICEHOLD:
    case st.SERVICEFAIL:
      return st.abortedByRequest('service', node.service_step);
    case st.RESCUEWAIT:
      return 'By request, the rescue operation was aborted.';
    case st.INSPECTWAIT:
      return 'Inspection was aborted by request.';
    default:
      return null;
  }
}

/** Ironic's _check_steps: the list against its schema, refused with jsonschema's whole error. */
function checkStepsSchema(kind: 'clean' | 'deploy' | 'service', schema: JsonSchema, steps: unknown): void {
  const invalid = schemaErrorText(schema, steps);
  if (invalid !== undefined) throw new InvalidParameterValue(`Invalid ${kind}_steps: ${invalid}`);
}

/** deploy_steps (1.69, deploy/rebuild only), Ironic's check_allow_deploy_steps and schema. */
function checkDeploySteps(target: string, steps: unknown): RpcMethods['do_node_deploy']['deploy_steps'] {
  if (!hasSteps(steps)) return undefined;
  if (target !== st.ACTIVE && target !== 'rebuild' && target !== 'deploy') {
    throw new ClientSideError(`"deploy_steps" is only valid when setting target provision state to ${st.ACTIVE} or rebuild`);
  }
  checkStepsSchema('deploy', DEPLOY_STEPS_SCHEMA, steps);
  return steps as RpcMethods['do_node_deploy']['deploy_steps'];
}

/** clean_steps: required for `clean`, Ironic's schema (interfaces that have clean steps). */
function checkCleanSteps(steps: unknown): RpcMethods['do_node_clean']['clean_steps'] {
  if (!hasSteps(steps)) {
    throw new ClientSideError('"clean_steps" is required when setting target provision state to clean');
  }
  checkStepsSchema('clean', CLEAN_STEPS_SCHEMA, steps);
  return steps as RpcMethods['do_node_clean']['clean_steps'];
}

/** service_steps: required for `service` (1.87), Ironic's _check_service_steps. */
function checkServiceSteps(steps: unknown): RpcMethods['do_node_service']['service_steps'] {
  if (!hasSteps(steps)) {
    throw new ClientSideError('"service_steps" is required when setting target provision state to service');
  }
  checkStepsSchema('service', SERVICE_STEPS_SCHEMA, steps);
  return steps as RpcMethods['do_node_service']['service_steps'];
}

export const NODE_STATE_ROUTES = [
  route('GET', '/v1/nodes/:ident/states', getStates),
  route('PUT', '/v1/nodes/:ident/states/provision', setProvisionState),
];
