/**
 * The reboot that finishes a redfish BIOS step, as Ironic master's `reboot_to_finish_step`: in a
 * deploy always into the ramdisk (the old agent's token wiped and stored first), in a clean or
 * service only when it booted the ramdisk (not `disable_ramdisk`), else a plain reboot; under fast
 * track (fast track on, a recent heartbeat, the node on) powered off first unless the node may
 * never be off (`disable_power_off`). A firmware update's reboot stays plain in a deploy.
 */
import { jest } from '@jest/globals';
import { Logger } from '@aws-lambda-powertools/logger';
import { loadAgentConfig } from '../../../functions/common/config';
import { CLEANWAIT, DEPLOYING, DEPLOYWAIT, POWER_OFF, POWER_ON, SERVICEWAIT } from '../../../functions/common/states';
import type { BootInterface, PowerInterface, Task } from '../../../functions/drivers/base';
import { rebootForFirmware, rebootToFinishStep } from '../../../functions/drivers/redfish/finish-step';
import type { NodeData } from '../../../functions/objects/node';
import { makeNode } from '../helpers/builders';

const log = new Logger({ serviceName: 'test', logLevel: 'SILENT' });
const FAST = { ...loadAgentConfig({}), fastTrack: true, fastTrackTimeoutSeconds: 300 };
const SLOW = { ...FAST, fastTrack: false };

/** A BMC that records its power actions and the ramdisk's preparation, in order, with the token at each. */
function bench(overrides: Partial<NodeData> = {}, info: Record<string, unknown> = {}) {
  const calls: string[] = [];
  const node = makeNode({
    driver: 'redfish',
    power_state: POWER_ON,
    ...overrides,
    driver_internal_info: {
      agent_url: 'http://192.0.2.9:9999',
      agent_secret_token: 'old-token',
      agent_last_heartbeat: new Date(Date.now() - 5000).toISOString(),
      ...info,
    },
  });
  let on = true;
  const token = () => String(node.driver_internal_info.agent_secret_token ?? 'none');
  const power = {
    getPowerState: jest.fn(async () => (on ? POWER_ON : POWER_OFF)),
    setPowerState: jest.fn(async (_t: Task, state: string) => {
      calls.push(`set:${state}`);
      on = state === POWER_ON;
    }),
    reboot: jest.fn(async () => {
      calls.push(`reboot (token ${token()})`);
      on = true;
    }),
  } as unknown as PowerInterface;
  const boot = {
    prepareRamdisk: jest.fn(async () => void calls.push(`prepare_ramdisk (token ${token()})`)),
  } as unknown as BootInterface;
  const persist = jest.fn(async () => void calls.push(`persist (token ${token()})`));
  const task: Task = { node, log, persist };
  return { calls, node, power, boot, task };
}

describe('rebootToFinishStep (the BIOS steps)', () => {
  it.each([DEPLOYING, DEPLOYWAIT])('in %s reboots into the ramdisk, the old token wiped and stored first', async (state) => {
    const b = bench({ provision_state: state, target_provision_state: 'active' });
    await rebootToFinishStep(b.task, b.power, b.boot, () => SLOW);
    expect(b.calls).toEqual(['persist (token none)', 'prepare_ramdisk (token none)', 'reboot (token none)']);
    expect(b.node.power_state).toBe(POWER_ON);
    expect(b.node.driver_internal_info).not.toHaveProperty('agent_url');
  });

  it.each([CLEANWAIT, SERVICEWAIT])('in %s reboots into the ramdisk only when the flow booted it', async (state) => {
    const booted = bench({ provision_state: state }, { steps_boot_agent: true });
    await rebootToFinishStep(booted.task, booted.power, booted.boot, () => SLOW);
    expect(booted.calls).toEqual(['persist (token none)', 'prepare_ramdisk (token none)', 'reboot (token none)']);
    // disable_ramdisk: a plain reboot, the agent's token untouched (none runs).
    const without = bench({ provision_state: state });
    await rebootToFinishStep(without.task, without.power, without.boot, () => SLOW);
    expect(without.calls).toEqual(['reboot (token old-token)']);
  });

  it('under fast track powers the node off first, then prepares the ramdisk and boots it', async () => {
    const b = bench({ provision_state: DEPLOYWAIT, target_provision_state: 'active' });
    await rebootToFinishStep(b.task, b.power, b.boot, () => FAST);
    expect(b.calls).toEqual([`set:${POWER_OFF}`, 'persist (token none)', 'prepare_ramdisk (token none)', 'reboot (token none)']);
    expect(b.node.power_state).toBe(POWER_ON);
  });

  it('does not power off a node that may never be off, an agent not heard from lately, or a node already off', async () => {
    const never = bench({ provision_state: DEPLOYWAIT, disable_power_off: true });
    await rebootToFinishStep(never.task, never.power, never.boot, () => FAST);
    const stale = bench({ provision_state: DEPLOYWAIT }, { agent_last_heartbeat: new Date(Date.now() - 301_000).toISOString() });
    await rebootToFinishStep(stale.task, stale.power, stale.boot, () => FAST);
    const off = bench({ provision_state: DEPLOYWAIT });
    await off.power.setPowerState(off.task, POWER_OFF);
    off.calls.length = 0;
    await rebootToFinishStep(off.task, off.power, off.boot, () => FAST);
    for (const b of [never, stale, off]) {
      expect(b.calls).toEqual(['persist (token none)', 'prepare_ramdisk (token none)', 'reboot (token none)']);
    }
    // A clean without the ramdisk: no power off even under fast track, a plain reboot.
    const plain = bench({ provision_state: CLEANWAIT });
    await rebootToFinishStep(plain.task, plain.power, plain.boot, () => FAST);
    expect(plain.calls).toEqual(['reboot (token old-token)']);
  });
});

describe('rebootForFirmware (a firmware update)', () => {
  it('is a plain reboot in a deploy, and back into the ramdisk in a clean that booted it', async () => {
    const deploy = bench({ provision_state: DEPLOYWAIT, target_provision_state: 'active' });
    await rebootForFirmware(deploy.task, deploy.power, deploy.boot);
    expect(deploy.calls).toEqual(['reboot (token old-token)']);
    const clean = bench({ provision_state: CLEANWAIT }, { steps_boot_agent: true });
    await rebootForFirmware(clean.task, clean.power, clean.boot);
    expect(clean.calls).toEqual(['persist (token none)', 'prepare_ramdisk (token none)', 'reboot (token none)']);
  });
});
