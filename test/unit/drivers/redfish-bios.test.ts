/**
 * The redfish bios steps against a mocked BMC client, asynchronous as Ironic master's:
 * apply_configuration PATCHes the pending values, records `redfish_bios_state`, reboots and waits
 * (unless every requested value stands already: done at once, no PATCH, no reboot); factory_reset
 * posts ResetBios the same way. The steps' `poll` (what `poll_waiting_steps` calls) waits while
 * BootProgress shows the host short of its OS or a requested value is not in effect (with or
 * without BootProgress), then clears the state and caches the settings; their `resume` (the
 * second call the ramdisk's heartbeat makes) checks the values at once and fails with Ironic's
 * last_error when one was not taken.
 */
import { jest } from '@jest/globals';
import { Logger } from '@aws-lambda-powertools/logger';
import type { BootInterface, PowerInterface, StepDefinition, Task } from '../../../functions/drivers/base';
import { createRedfishBios } from '../../../functions/drivers/redfish/bios';
import type { RedfishClient, Resource } from '../../../functions/drivers/redfish/client';
import { DEFAULT_REDFISH_CONFIG } from '../../../functions/drivers/redfish/config';
import { RedfishSystem } from '../../../functions/drivers/redfish/system';
import { PERMISSIVE_FETCH_POLICY } from '../../../functions/drivers/hosts';
import { makeNode } from '../helpers/builders';
import { MemoryBiosSettingStore } from '../helpers/memory-stores';

const log = new Logger({ serviceName: 'test', logLevel: 'SILENT' });
const SYSTEM = '/redfish/v1/Systems/1';
const BIOS = `${SYSTEM}/Bios`;
const SETTINGS = `${BIOS}/Settings`;
const RESET = `${BIOS}/Actions/Bios.ResetBios`;

/** A BMC whose firmware applies pending values at a reboot (unless `ignores`), with a BootProgress to report. */
function bmc(options: { ignores?: boolean } = {}) {
  const state = {
    attributes: { ProcTurboMode: 'Enabled', NumLock: true } as Record<string, unknown>,
    pending: {} as Record<string, unknown>,
    bootProgress: undefined as string | undefined,
  };
  const docs = (path: string): Resource => {
    if (path === SYSTEM)
      return { Bios: { '@odata.id': BIOS }, ...(state.bootProgress ? { BootProgress: { LastState: state.bootProgress } } : {}) };
    if (path === SETTINGS) return { Attributes: { ...state.pending } };
    if (path === BIOS) {
      return {
        Attributes: { ...state.attributes },
        '@Redfish.Settings': { SettingsObject: { '@odata.id': SETTINGS }, SupportedApplyTimes: ['OnReset'] },
        Actions: { '#Bios.ResetBios': { target: RESET } },
      };
    }
    throw new Error(`unexpected GET ${path}`);
  };
  const client = {
    root: '/redfish/v1/',
    get: jest.fn(async (path: string) => docs(path)),
    patch: jest.fn(async (_path: string, body: Resource) => {
      state.pending = { ...(body.Attributes as Resource) };
      return {};
    }),
    post: jest.fn(async () => {
      state.pending = { ProcTurboMode: 'Enabled', NumLock: true };
      return {};
    }),
  };
  const power = {
    reboot: jest.fn(async () => {
      if (!options.ignores) state.attributes = { ...state.attributes, ...state.pending };
      state.pending = {};
    }),
  } as unknown as PowerInterface;
  const boot = { prepareRamdisk: jest.fn(async () => undefined) } as unknown as BootInterface;
  const bios = createRedfishBios({ ...DEFAULT_REDFISH_CONFIG, policy: PERMISSIVE_FETCH_POLICY }, power, boot, {
    getSystem: async () => new RedfishSystem(client as unknown as RedfishClient, SYSTEM, docs(SYSTEM)),
  });
  const store = new MemoryBiosSettingStore();
  const node = makeNode({ driver: 'redfish' });
  const persist = jest.fn(async () => undefined);
  const task: Task = { node, log, persist, biosSettings: { replace: async (s) => void (await store.sync(node.uuid, s)) } };
  const step = (name: string) => bios.cleanSteps?.find((s) => s.step === name) as StepDefinition;
  const values = async () => Object.fromEntries((await store.list(node.uuid)).map((s) => [s.name, s.value]));
  return { state, client, power, task, step, values, persist };
}

describe('redfish bios steps', () => {
  it('apply_configuration PATCHes the pending values, records the state, reboots and waits; the poll checks and caches', async () => {
    const { state, client, power, task, step, values, persist } = bmc();
    const apply = step('apply_configuration');
    expect(await apply.execute(task, { settings: [{ name: 'ProcTurboMode', value: 'Disabled' }] })).toEqual({ wait: true });
    expect(client.patch).toHaveBeenCalledWith(SETTINGS, {
      Attributes: { ProcTurboMode: 'Disabled' },
      '@Redfish.SettingsApplyTime': { ApplyTime: 'OnReset' },
    });
    expect(task.node.driver_internal_info.redfish_bios_state).toEqual({
      reboot_requested: true,
      requested_bios_attrs: { ProcTurboMode: 'Disabled' },
    });
    // Stored before the reboot, as Ironic saves the node first.
    expect(persist.mock.invocationCallOrder[0]).toBeLessThan((power.reboot as jest.Mock).mock.invocationCallOrder[0]!);
    expect(await values()).toEqual({});

    // The host still in POST: keep waiting, nothing cleared.
    state.bootProgress = 'SystemHardwareInitializationComplete';
    expect(await apply.poll!(task)).toEqual({ state: 'waiting' });
    expect(task.node.driver_internal_info).toHaveProperty('redfish_bios_state');
    state.bootProgress = 'OSRunning';
    expect(await apply.poll!(task)).toEqual({ state: 'done' });
    expect(task.node.driver_internal_info).not.toHaveProperty('redfish_bios_state');
    expect(await values()).toEqual({ ProcTurboMode: 'Disabled', NumLock: 'True' });
  });

  it("keeps polling while a value is not taken, BootProgress or not; the second call fails with Ironic's last_error", async () => {
    const { state, task, step, values, client } = bmc({ ignores: true });
    const apply = step('apply_configuration');
    await apply.execute(task, { settings: [{ name: 'NumLock', value: false }] });
    // Without BootProgress (Ironic master): the values decide, and they are not there.
    expect(await apply.poll!(task)).toEqual({ state: 'waiting' });
    state.bootProgress = 'OSRunning';
    expect(await apply.poll!(task)).toEqual({ state: 'waiting' });
    expect(task.node.driver_internal_info).toHaveProperty('redfish_bios_state');
    expect(await values()).toEqual({});
    // The ramdisk's heartbeat makes the step's second call: checked at once, the state cleared, cached anyway.
    expect(await apply.resume!(task)).toEqual({
      state: 'failed',
      message: "Redfish BIOS apply_configuration step failed. Attributes {'NumLock': False} are not updated.",
    });
    expect(task.node.driver_internal_info).not.toHaveProperty('redfish_bios_state');
    expect(await values()).toEqual({ ProcTurboMode: 'Enabled', NumLock: 'True' });
    expect(client.patch).toHaveBeenCalledTimes(1);
  });

  it('a value current but still pending (a BMC that keeps only the changes there) is not in effect yet', async () => {
    const { state, task, step } = bmc();
    const apply = step('apply_configuration');
    await apply.execute(task, { settings: [{ name: 'ProcTurboMode', value: 'Disabled' }] });
    state.pending = { ProcTurboMode: 'Disabled' };
    expect(await apply.poll!(task)).toEqual({ state: 'waiting' });
    state.pending = {};
    expect(await apply.poll!(task)).toEqual({ state: 'done' });
  });

  it('the second call is done when the values are there, the state cleared and the settings cached', async () => {
    const { task, step, values } = bmc();
    const apply = step('apply_configuration');
    await apply.execute(task, { settings: [{ name: 'ProcTurboMode', value: 'Disabled' }] });
    expect(await apply.resume!(task)).toEqual({ state: 'done' });
    expect(task.node.driver_internal_info).not.toHaveProperty('redfish_bios_state');
    expect(await values()).toEqual({ ProcTurboMode: 'Disabled', NumLock: 'True' });
  });

  it('skips the apply and the reboot when every requested value stands already (none pending otherwise)', async () => {
    const { state, client, power, task, step, values } = bmc();
    const apply = step('apply_configuration');
    expect(
      await apply.execute(task, {
        settings: [
          { name: 'ProcTurboMode', value: 'Enabled' },
          { name: 'NumLock', value: true },
        ],
      }),
    ).toEqual({
      wait: false,
    });
    expect(client.patch).not.toHaveBeenCalled();
    expect(power.reboot).not.toHaveBeenCalled();
    expect(task.node.driver_internal_info).not.toHaveProperty('redfish_bios_state');
    expect(await values()).toEqual({ ProcTurboMode: 'Enabled', NumLock: 'True' });
    // A different value pending for one of them: applied and rebooted for, as Ironic master.
    state.pending = { ProcTurboMode: 'Disabled' };
    expect(await apply.execute(task, { settings: [{ name: 'ProcTurboMode', value: 'Enabled' }] })).toEqual({ wait: true });
    expect(client.patch).toHaveBeenCalledTimes(1);
    expect(power.reboot).toHaveBeenCalledTimes(1);
  });

  it('factory_reset posts ResetBios, reboots and waits; the poll caches the defaults', async () => {
    const { client, power, task, step, values } = bmc();
    const reset = step('factory_reset');
    expect(await reset.execute(task, {})).toEqual({ wait: true });
    expect(client.post).toHaveBeenCalledWith(RESET, {});
    expect(power.reboot).toHaveBeenCalledTimes(1);
    expect(task.node.driver_internal_info.redfish_bios_state).toEqual({ reboot_requested: true });
    expect(await reset.poll!(task)).toEqual({ state: 'done' });
    expect(task.node.driver_internal_info).not.toHaveProperty('redfish_bios_state');
    expect(await values()).toEqual({ ProcTurboMode: 'Enabled', NumLock: 'True' });
  });

  it('are asynchronous clean, deploy and service steps that the periodic task polls and the ramdisk resumes', () => {
    const { step } = bmc();
    for (const name of ['apply_configuration', 'factory_reset']) {
      expect(step(name)).toMatchObject({
        priority: 0,
        async: true,
        requiresRamdisk: false,
        poll: expect.any(Function),
        resume: expect.any(Function),
      });
    }
  });
});
