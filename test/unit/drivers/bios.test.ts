/**
 * fake-hardware's bios interface (Ironic's FakeBIOS): apply_configuration leaves the node's cached
 * settings exactly the ones given (values as Ironic's string field stores them), factory_reset
 * deletes them, cache_bios_settings leaves them; bad settings are refused before anything is stored.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { fakeBios } from '../../../functions/drivers/bios';
import type { StepDefinition, Task } from '../../../functions/drivers/base';
import { makeNode } from '../helpers/builders';
import { MemoryBiosSettingStore } from '../helpers/memory-stores';

const log = new Logger({ serviceName: 'test', logLevel: 'SILENT' });

function setup() {
  const store = new MemoryBiosSettingStore();
  const node = makeNode();
  const task: Task = { node, log, biosSettings: { replace: async (settings) => void (await store.sync(node.uuid, settings)) } };
  const step = (name: string) => fakeBios.cleanSteps?.find((s) => s.step === name) as StepDefinition;
  const values = async () => (await store.list(node.uuid)).map((s) => [s.name, s.value]);
  return { store, node, task, step, values };
}

it('applies settings as the whole set, keeps them on caching, and deletes them on factory reset', async () => {
  const { task, step, values } = setup();
  await step('apply_configuration').execute(task, {
    settings: [
      { name: 'ProcTurboMode', value: 'Disabled' },
      { name: 'BootDelay', value: 5 },
      { name: 'NumLock', value: true },
    ],
  });
  expect(await values()).toEqual([
    ['BootDelay', '5'],
    ['NumLock', 'True'],
    ['ProcTurboMode', 'Disabled'],
  ]);
  await step('apply_configuration').execute(task, { settings: [{ name: 'ProcTurboMode', value: 'Enabled' }] });
  expect(await values()).toEqual([['ProcTurboMode', 'Enabled']]);
  await step('cache_bios_settings').execute(task, {});
  await fakeBios.cacheBiosSettings(task);
  expect(await values()).toEqual([['ProcTurboMode', 'Enabled']]);
  await step('factory_reset').execute(task, {});
  expect(await values()).toEqual([]);
});

it('refuses settings that are not a list of name/value pairs, storing nothing', async () => {
  const { task, step, values } = setup();
  await expect(step('apply_configuration').execute(task, { settings: { ProcTurboMode: 'Disabled' } })).rejects.toThrow(
    "BIOS settings must be a list of name/value pairs, not {'ProcTurboMode': 'Disabled'}",
  );
  await expect(step('apply_configuration').execute(task, { settings: [{ name: 'A', value: '1' }, { value: '2' }] })).rejects.toThrow(
    "Each BIOS setting needs a name and a value: {'value': '2'}",
  );
  expect(await values()).toEqual([]);
});
