/**
 * In-band steps: the ones the ramdisk agent runs. Fetching the agent's step lists, starting a step
 * with `execute_deploy_step` / `execute_clean_step`, after Ironic's `agent_base.py`.
 */
import { loadAgentConfig } from '#common/config';
import { InstanceDeployFailure, InvalidParameterValue } from '#common/errors';
import type { InterfaceType, Node } from '#objects/node';
import { AgentClient, DEFAULT_AGENT_CLIENT_OPTIONS, type AgentClientOptions } from '../agent-client';
import type { Step, Task } from '../base';
import { fetchPolicyFromEnv } from '../hosts';

// Where the flows have always found it; the token rules live in token.ts.
export { wipeAgentToken } from './token';

export type AgentFlow = 'deploy' | 'clean' | 'service';

let client: AgentClient | undefined;

/**
 * Agent command timeouts from the environment (Ironic's `[agent]command_timeout`), and the host
 * policy agents' callback URLs must pass (the BMCs' one), read once.
 */
export function agentClientOptions(): AgentClientOptions {
  const seconds = loadAgentConfig().commandTimeoutSeconds;
  return {
    ...DEFAULT_AGENT_CLIENT_OPTIONS,
    ...(seconds === undefined ? {} : { commandTimeoutMs: seconds * 1000 }),
    policy: fetchPolicyFromEnv(),
  };
}

/** The process-wide agent client. */
export function agentClient(): AgentClient {
  client ??= new AgentClient(agentClientOptions());
  return client;
}

/** Replace the agent client (unit tests: short timeouts). */
export function setAgentClient(replacement: AgentClient | undefined): void {
  client = replacement;
}

/** The agent extension of a flow's steps: IPA has `deploy`, `clean` and `service` (get_service_steps, execute_service_step). */
function agentKind(flow: AgentFlow): AgentFlow {
  return flow;
}

export function executeCommandName(flow: AgentFlow): string {
  return `${agentKind(flow)}.execute_${agentKind(flow)}_step`;
}

/** Start an in-band step on the agent without waiting; its completion is seen on a later heartbeat. */
export async function executeInbandStep(task: Task, flow: AgentFlow, step: Step): Promise<void> {
  const kind = agentKind(flow);
  const node = task.node;
  const params: Record<string, unknown> = {
    step: {
      interface: step.interface,
      step: step.step,
      priority: step.priority,
      args: step.args,
      reboot_requested: step.reboot_requested ?? false,
    },
    node: {
      uuid: node.uuid,
      properties: node.properties,
      instance_info: node.instance_info,
      driver_internal_info: node.driver_internal_info,
      // IPA's RAID steps read the configuration to build from the node.
      target_raid_config: node.target_raid_config,
    },
    ports: [],
    [`${kind}_version`]: node.driver_internal_info.hardware_manager_version ?? null,
  };
  const result = await agentClient().command(node, executeCommandName(flow), params, false);
  if (!result.command_status) {
    throw new InstanceDeployFailure(`Agent on node ${node.uuid} returned bad command result: ${JSON.stringify(result)}`);
  }
  task.log.info('In-band step started on the agent', { node: node.uuid, step: `${step.interface}.${step.step}` });
}

/** What `get_<kind>_steps` answers, as stored steps (in-band, async); Ironic's checks of the result. */
export function parseAgentSteps(node: Node, flow: AgentFlow, result: Record<string, unknown> | null): { steps: Step[]; version: unknown } {
  const kind = agentKind(flow);
  const missing = [`${kind}_steps`, 'hardware_manager_version'].filter((key) => !(result !== null && key in result));
  if (result === null || missing.length > 0) {
    throw new InvalidParameterValue(
      `agent get_${kind}_steps for node ${node.uuid} returned an invalid result. Keys: ${missing.join(', ')} are missing from result: ${JSON.stringify(result)}.`,
    );
  }
  const byManager = result[`${kind}_steps`] as Record<string, unknown[]>;
  const steps: Step[] = [];
  for (const list of Object.values(byManager ?? {})) {
    for (const raw of list as Record<string, unknown>[]) {
      const absent = ['interface', 'step', 'priority'].filter((key) => !(key in raw));
      if (absent.length > 0) {
        throw new InvalidParameterValue(
          `agent get_${kind}_steps for node ${node.uuid} returned an invalid ${kind} step. Keys: ${absent.join(', ')} are missing from step: ${JSON.stringify(raw)}.`,
        );
      }
      steps.push({
        interface: raw.interface as InterfaceType,
        step: String(raw.step),
        priority: Number(raw.priority),
        args: {},
        async: true,
        inband: true,
        reboot_requested: raw.reboot_requested === true,
        // As the agent says (IPA flags its clean steps abortable, none of its deploy steps).
        ...('abortable' in raw ? { abortable: raw.abortable === true } : {}),
      });
    }
  }
  return { steps, version: result.hardware_manager_version };
}

/** Ask the agent for its steps of a flow (waits for the answer). */
export async function fetchAgentSteps(task: Task, flow: AgentFlow): Promise<{ steps: Step[]; version: unknown }> {
  const kind = agentKind(flow);
  const node = task.node;
  const result = await agentClient().command(
    node,
    `${kind}.get_${kind}_steps`,
    { node: { uuid: node.uuid, properties: node.properties, instance_info: node.instance_info }, ports: [] },
    true,
  );
  return parseAgentSteps(node, flow, result.command_result);
}
