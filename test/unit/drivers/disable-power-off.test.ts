/**
 * Nodes that may not be powered off (API 1.95 `disable_power_off`), as Ironic's conductor treats
 * them: every power interface refuses power off, the `direct` deploy locks the agent down instead
 * of switching the machine off and reboots into the instance, undeploy and the end of cleaning
 * reboot rather than power off. And redfish health (API 1.109): the system's Status.Health.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { loadAgentConfig } from '../../../functions/common/config';
import { PowerStateFailure } from '../../../functions/common/errors';
import { POWER_OFF, POWER_ON, REBOOT, SOFT_POWER_OFF } from '../../../functions/common/states';
import { AgentClient } from '../../../functions/drivers/agent-client';
import { createDirectDeploy } from '../../../functions/drivers/agent/deploy';
import { setAgentClient } from '../../../functions/drivers/agent/inband';
import type { Driver, Task } from '../../../functions/drivers/base';
import { fakePower } from '../../../functions/drivers/fake';
import { refusePowerOff } from '../../../functions/drivers/power-off';
import { makeNode } from '../helpers/builders';
import { FakeIpa } from '../helpers/fake-ipa';

const log = new Logger({ serviceName: 'test', logLevel: 'SILENT' });

describe('power off refused', () => {
  it.each([POWER_OFF, SOFT_POWER_OFF])('%s of a node with disable_power_off: PowerStateFailure, node untouched', async (state) => {
    const node = makeNode({ disable_power_off: true, power_state: POWER_ON });
    await expect(fakePower.setPowerState({ node, log }, state)).rejects.toThrow(`Failed to set node power state to ${state}.`);
    expect(node.power_state).toBe(POWER_ON);
    expect(() => refusePowerOff(node, state)).toThrow(PowerStateFailure);
  });

  it('lets power on, reboot, and power off of other nodes through', async () => {
    const node = makeNode({ disable_power_off: true, power_state: POWER_ON });
    await fakePower.reboot({ node, log });
    await fakePower.setPowerState({ node, log }, POWER_ON);
    expect(() => refusePowerOff(node, REBOOT)).not.toThrow();
    const other = makeNode({ power_state: POWER_ON });
    await fakePower.setPowerState({ node: other, log }, POWER_OFF);
    expect(other.power_state).toBe(POWER_OFF);
  });
});

describe('the direct deploy of a node that may not be powered off', () => {
  let ipa: FakeIpa;
  beforeEach(async () => {
    ipa = await new FakeIpa().start();
    setAgentClient(new AgentClient({ commandTimeoutMs: 2000, attempts: 1, retryIntervalMs: 1 }));
  });
  afterEach(async () => {
    setAgentClient(undefined);
    await ipa.stop();
  });

  function bmc() {
    const calls: string[] = [];
    const driver = {
      power: {
        async getPowerState() {
          return POWER_ON;
        },
        async setPowerState(task: Task, target: string) {
          refusePowerOff(task.node, target);
          calls.push(`set:${target}`);
        },
        async reboot() {
          calls.push('reboot');
        },
      },
      boot: {
        async cleanUpRamdisk() {
          calls.push('boot:clean_up_ramdisk');
        },
        async cleanUpInstance() {
          calls.push('boot:clean_up_instance');
        },
      },
    } as unknown as Driver;
    const deploy = createDirectDeploy(
      () => driver,
      () => ({ ...loadAgentConfig({}), postDeployPowerStateRetries: 2, postDeployPowerStateRetryIntervalSeconds: 1 }),
      async () => undefined,
    );
    return { deploy, calls };
  }

  const task = (): Task => ({
    node: makeNode({
      provision_state: 'deploying',
      disable_power_off: true,
      power_state: POWER_ON,
      driver_internal_info: { agent_url: ipa.url, agent_secret_token: ipa.token },
    }),
    log,
  });

  it('tear_down_agent syncs and locks the agent down, waits until it is gone, and never powers off', async () => {
    const { deploy, calls } = bmc();
    const t = task();
    await deploy.deploySteps!.find((s) => s.step === 'tear_down_agent')!.execute(t, {});
    expect(ipa.requests.filter((r) => r.method === 'POST').map((r) => r.name)).toEqual(['standby.sync', 'system.lockdown']);
    expect(ipa.lockedDown).toBe(true);
    expect(calls).toEqual(['boot:clean_up_ramdisk']);
    expect(t.node.power_state).toBe(POWER_ON);
    expect(t.node.driver_internal_info.agent_secret_token).toBeUndefined();
  });

  it('tear_down_agent fails the deploy when the agent is still there after the lockdown', async () => {
    const { deploy } = bmc();
    ipa.ignoreLockdown = true;
    await expect(deploy.deploySteps!.find((s) => s.step === 'tear_down_agent')!.execute(task(), {})).rejects.toThrow(
      /Failed to lock down node .* in at least 2 seconds: agent is still available/,
    );
    expect(ipa.requests.filter((r) => r.method === 'GET')).toHaveLength(3);
  });

  it('boot_instance reboots into the instance; undeploy and the end of cleaning reboot instead of powering off', async () => {
    const { deploy, calls } = bmc();
    const t = task();
    await deploy.deploySteps!.find((s) => s.step === 'boot_instance')!.execute(t, {});
    expect(calls).toEqual(['reboot']);
    calls.length = 0;
    await deploy.tearDown!(t);
    expect(calls).toEqual(['boot:clean_up_instance', 'reboot']);
    calls.length = 0;
    t.node.driver_internal_info = {};
    await deploy.tearDownCleaning!(t);
    expect(calls).toEqual(['boot:clean_up_ramdisk', 'reboot']);
    expect(t.node.power_state).toBe(POWER_ON);
  });
});
