/**
 * The `direct` interface's tear_down_agent and fast track, as Ironic's agent_base: the agent powers
 * the machine off itself (standby.power_off) and the BMC forces it only when it stays on; with
 * `deploy_forces_oob_reboot` the disks are synced and the BMC cuts the power; fast track keeps an
 * agent that heartbeated recently instead of rebooting into a new one.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { type AgentConfig, loadAgentConfig } from '../../../functions/common/config';
import { POWER_OFF, POWER_ON } from '../../../functions/common/states';
import { AgentClient } from '../../../functions/drivers/agent-client';
import { createDirectDeploy, fastTrackEnabled, isFastTrack } from '../../../functions/drivers/agent/deploy';
import { setAgentClient } from '../../../functions/drivers/agent/inband';
import type { Driver, StepDefinition, Task } from '../../../functions/drivers/base';
import { makeNode } from '../helpers/builders';
import { FakeIpa } from '../helpers/fake-ipa';

const log = new Logger({ serviceName: 'test', logLevel: 'SILENT' });
let ipa: FakeIpa;

beforeEach(async () => {
  ipa = await new FakeIpa().start();
  setAgentClient(new AgentClient({ commandTimeoutMs: 2000, attempts: 1, retryIntervalMs: 1 }));
});
afterEach(async () => {
  setAgentClient(undefined);
  await ipa.stop();
});

/** A BMC whose machine is on until someone (the agent's power_off after `offAfterPolls` polls, or the BMC) turns it off. */
function bmc(offAfterPolls: number | undefined) {
  const calls: string[] = [];
  let state = POWER_ON;
  let polls = 0;
  const driver = {
    power: {
      async getPowerState() {
        polls++;
        if (offAfterPolls !== undefined && calls.includes('agent:power_off') && polls > offAfterPolls) state = POWER_OFF;
        calls.push(`get:${state}`);
        return state;
      },
      async setPowerState(_task: Task, target: string) {
        calls.push(`set:${target}`);
        state = target;
      },
    },
    boot: {
      async cleanUpRamdisk() {
        calls.push('boot:clean_up_ramdisk');
      },
    },
  } as unknown as Driver;
  return { driver, calls };
}

function tearDownAgent(driver: Driver, config: Partial<AgentConfig>, sleeps: number[]): StepDefinition {
  const deploy = createDirectDeploy(
    () => driver,
    () => ({ ...loadAgentConfig({}), ...config }),
    async (ms) => void sleeps.push(ms),
  );
  return deploy.deploySteps!.find((s) => s.step === 'tear_down_agent')!;
}

function task(driverInfo: Record<string, unknown> = {}): Task {
  const node = makeNode({
    provision_state: 'deploying',
    driver_info: driverInfo,
    driver_internal_info: { agent_url: ipa.url, agent_secret_token: ipa.token },
  });
  return { node, log };
}

/** Record the agent's power_off in the BMC's log when it arrives. */
function agentPowersOff(calls: string[]): void {
  const origin = ipa.requests.push.bind(ipa.requests);
  ipa.requests.push = (...items) => {
    for (const item of items) if (item.name === 'standby.power_off') calls.push('agent:power_off');
    return origin(...items);
  };
}

describe('tear_down_agent', () => {
  it('lets the agent power the machine off and waits for the BMC to see it, without forcing', async () => {
    const { driver, calls } = bmc(2);
    agentPowersOff(calls);
    const sleeps: number[] = [];
    const t = task();
    await tearDownAgent(driver, { postDeployPowerStateRetryIntervalSeconds: 5 }, sleeps).execute(t, {});
    expect(calls).toEqual(['agent:power_off', 'get:power on', 'get:power on', 'get:power off', 'boot:clean_up_ramdisk']);
    expect(sleeps).toEqual([5000, 5000]);
    expect(t.node.power_state).toBe(POWER_OFF);
    expect(t.node.driver_internal_info.agent_secret_token).toBeUndefined();
  });

  it('forces the power off through the BMC when the machine is still on after the retries', async () => {
    const { driver, calls } = bmc(undefined);
    agentPowersOff(calls);
    const sleeps: number[] = [];
    await tearDownAgent(driver, { postDeployPowerStateRetries: 2, postDeployPowerStateRetryIntervalSeconds: 1 }, sleeps).execute(
      task(),
      {},
    );
    expect(calls).toEqual(['agent:power_off', 'get:power on', 'get:power on', 'get:power on', 'set:power off', 'boot:clean_up_ramdisk']);
    expect(sleeps).toEqual([1000, 1000]);
  });

  it('powers off through the BMC when the agent cannot be reached', async () => {
    const { driver, calls } = bmc(undefined);
    await ipa.stop();
    await tearDownAgent(driver, { postDeployPowerStateRetries: 1, postDeployPowerStateRetryIntervalSeconds: 0 }, []).execute(task(), {});
    expect(calls).toEqual(['get:power on', 'get:power on', 'set:power off', 'boot:clean_up_ramdisk']);
  });

  it('with deploy_forces_oob_reboot, syncs the disks and cuts the power out of band', async () => {
    const { driver, calls } = bmc(undefined);
    await tearDownAgent(driver, {}, []).execute(task({ deploy_forces_oob_reboot: 'True' }), {});
    expect(ipa.requests.map((r) => r.name)).toEqual(['standby.sync']);
    expect(calls).toEqual(['set:power off', 'boot:clean_up_ramdisk']);
  });
});

describe('fast track', () => {
  const config = { ...loadAgentConfig({}), fastTrack: true, fastTrackTimeoutSeconds: 300 };
  const recent = (secondsAgo: number) => new Date(Date.now() - secondsAgo * 1000).toISOString();
  const withAgent = (overrides: Record<string, unknown> = {}, lastHeartbeat = recent(10)) => ({
    node: makeNode({
      driver_internal_info: { agent_url: ipa.url, agent_last_heartbeat: lastHeartbeat },
      ...overrides,
    }),
    log,
  });

  it('uses an agent that heartbeated within the timeout on a node the BMC says is on', async () => {
    expect(await isFastTrack(withAgent(), bmc(undefined).driver, config)).toBe(true);
    expect(await isFastTrack(withAgent({}, recent(301)), bmc(undefined).driver, config)).toBe(false);
    expect(await isFastTrack(withAgent({ last_error: 'boom' }), bmc(undefined).driver, config)).toBe(false);
    expect(await isFastTrack(withAgent(), bmc(undefined).driver, { ...config, fastTrack: false })).toBe(false);
    const off = bmc(undefined);
    await off.driver.power.setPowerState(withAgent(), POWER_OFF);
    expect(await isFastTrack(withAgent(), off.driver, config)).toBe(false);
  });

  it('lets driver_info.fast_track override the setting, and refuses a value that is no boolean', () => {
    expect(fastTrackEnabled(makeNode({ driver_info: { fast_track: 'false' } }), config)).toBe(false);
    expect(fastTrackEnabled(makeNode({ driver_info: { fast_track: true } }), { ...config, fastTrack: false })).toBe(true);
    expect(() => fastTrackEnabled(makeNode({ driver_info: { fast_track: 'maybe' } }), config)).toThrow(
      "Invalid value of fast_track: Unrecognized value 'maybe', acceptable values are: '0', '1', 'f', 'false', 'n', 'no', 'off', 'on', 't', 'true', 'y', 'yes'",
    );
  });
});
