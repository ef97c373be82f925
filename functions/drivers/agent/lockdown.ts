/**
 * Locking the agent down (Ironic's agent client `lockdown`): how a deploy leaves the ramdisk of a
 * node that may not be powered off (`disable_power_off`). The disks are flushed, the agent is told
 * `system.lockdown` (it stops answering and stops heartbeating), and the conductor waits until the
 * agent is gone, as long as it waits for a powered-off node after a deploy.
 */
import type { AgentConfig } from '#common/config';
import { InstanceDeployFailure } from '#common/errors';
import { AgentConnectionFailed } from '../agent-client';
import type { Task } from '../base';
import { agentClient } from './inband';

export async function lockDownAgent(task: Task, config: AgentConfig, sleep: (ms: number) => Promise<void>): Promise<void> {
  const node = task.node;
  const client = agentClient();
  try {
    await client.command(node, 'standby.sync', {}, true);
  } catch (err) {
    task.log.warn('Failed to flush the file system before locking the agent down', { node: node.uuid, error: String(err) });
  }
  await client.command(node, 'system.lockdown', {});
  const { postDeployPowerStateRetries: retries, postDeployPowerStateRetryIntervalSeconds: interval } = config;
  for (let attempt = 0; attempt <= retries; attempt++) {
    if (attempt > 0) await sleep(interval * 1000);
    try {
      await client.commandsStatus(node);
    } catch (err) {
      if (err instanceof AgentConnectionFailed) return;
      task.log.warn('Unexpected error checking the agent while locking it down', { node: node.uuid, error: String(err) });
    }
  }
  throw new InstanceDeployFailure(
    `Failed to lock down node ${node.uuid} in at least ${retries * interval} seconds: agent is still available`,
  );
}
