/**
 * Booting the deploy ramdisk stores the wiped agent token before the power action, as Ironic's
 * node_power_action saves the node first: the agent that boots looks up at once, and the API would
 * refuse it a token the stored node still holds (a reboot an in-band step asked for hung on this).
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { bootRamdisk } from '../../../functions/drivers/agent/deploy';
import type { Driver, Task } from '../../../functions/drivers/base';
import { makeNode } from '../helpers/builders';

const log = new Logger({ serviceName: 'test', logLevel: 'SILENT' });

function recordingDriver(calls: string[]): Driver {
  return {
    boot: {
      async prepareRamdisk() {
        calls.push('boot:prepare_ramdisk');
      },
    },
    power: {
      async reboot() {
        calls.push('power:reboot');
      },
    },
  } as unknown as Driver;
}

it('stores the node without the old agent token before rebooting', async () => {
  const calls: string[] = [];
  const node = makeNode({
    driver_internal_info: { agent_url: 'http://192.0.2.1:9999', agent_secret_token: 'x'.repeat(43), deployment_reboot: true },
  });
  const stored: Record<string, unknown>[] = [];
  const task: Task = {
    node,
    log,
    persist: async () => {
      calls.push('persist');
      stored.push({ ...node.driver_internal_info });
    },
  };
  await bootRamdisk(task, recordingDriver(calls));
  expect(calls).toEqual(['persist', 'boot:prepare_ramdisk', 'power:reboot']);
  expect(stored).toEqual([{ deployment_reboot: true }]);
  expect(node.power_state).toBe('power on');
});

it('writes nothing extra when no agent holds a token', async () => {
  const calls: string[] = [];
  const task: Task = { node: makeNode({ driver_internal_info: {} }), log, persist: async () => void calls.push('persist') };
  await bootRamdisk(task, recordingDriver(calls));
  expect(calls).toEqual(['boot:prepare_ramdisk', 'power:reboot']);
});
