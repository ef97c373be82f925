/**
 * Redfish indicator LEDs (Ironic master's RedfishManagement indicator methods) over a stub client:
 * the system's and chassis' LEDs by UUID, and the `disk` component, the drives of the system's
 * Storage named `<storage Id>:<drive Id>`; a drive without IndicatorLED has none, and a component
 * that cannot be read is left out of the list while the others are still listed.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import type { Task } from '../../../functions/drivers/base';
import type { RedfishClient } from '../../../functions/drivers/redfish/client';
import { RedfishRequestError, type Resource } from '../../../functions/drivers/redfish/client';
import type { RedfishConfig } from '../../../functions/drivers/redfish/config';
import { createRedfishIndicators } from '../../../functions/drivers/redfish/indicators';
import { RedfishSystem } from '../../../functions/drivers/redfish/system';
import { makeNode } from '../helpers/builders';

const S = '/redfish/v1/Systems/1';
const C = '/redfish/v1/Chassis/1';
const ref = (path: string) => ({ '@odata.id': path });
const SETTABLE = { readonly: false, states: ['blinking', 'off', 'on'] };

function baseDocs(): Record<string, Resource> {
  return {
    [C]: { Id: '1', UUID: 'chassis-uuid', IndicatorLED: 'Off' },
    [`${S}/Storage`]: { Members: [ref(`${S}/Storage/RAID.1`), ref(`${S}/Storage/AHCI`)] },
    [`${S}/Storage/RAID.1`]: { Id: 'RAID.1', Drives: [ref(`${S}/Storage/RAID.1/Drives/0`), ref(`${S}/Storage/RAID.1/Drives/1`)] },
    [`${S}/Storage/RAID.1/Drives/0`]: { Id: '0', IndicatorLED: 'Lit' },
    // No IndicatorLED: no LED to list.
    [`${S}/Storage/RAID.1/Drives/1`]: { Id: '1' },
    // The same drive Id under another controller: the storage's Id tells them apart.
    [`${S}/Storage/AHCI`]: { Id: 'AHCI', Drives: [ref(`${S}/Storage/AHCI/Drives/0`)] },
    [`${S}/Storage/AHCI/Drives/0`]: { Id: '0', IndicatorLED: 'Blinking' },
  };
}

/** The interface over `docs` (path → document; others answer 404), recording PATCHes. */
function setup(docs: Record<string, Resource> = baseDocs(), systemDoc: Resource = {}) {
  const patches: [string, unknown][] = [];
  const client = {
    async get(path: string) {
      const found = docs[path];
      if (found === undefined) throw new RedfishRequestError(`HTTP GET ${path} returned code 404.`, 'http', 'GET', path, false, 404);
      return found;
    },
    async patch(path: string, body: unknown) {
      patches.push([path, body]);
    },
  } as unknown as RedfishClient;
  const system = new RedfishSystem(client, S, {
    UUID: 'system-uuid',
    IndicatorLED: 'Off',
    Links: { Chassis: [ref(C)] },
    Storage: ref(`${S}/Storage`),
    ...systemDoc,
  });
  const node = makeNode();
  const task = { node, log: new Logger({ serviceName: 'test', logLevel: 'SILENT' }) } as unknown as Task;
  const indicators = createRedfishIndicators({} as RedfishConfig, { getSystem: async () => system });
  return { indicators, task, patches, node };
}

describe('redfish indicators', () => {
  it('list the chassis, system and drive LEDs, drives named <storage>:<drive>', async () => {
    const { indicators, task } = setup();
    expect(await indicators.getSupportedIndicators!(task)).toEqual({
      chassis: { 'chassis-uuid': SETTABLE },
      system: { 'system-uuid': SETTABLE },
      disk: { 'RAID.1:0': SETTABLE, 'AHCI:0': SETTABLE },
    });
    expect(await indicators.getSupportedIndicators!(task, 'disk')).toEqual({ disk: { 'RAID.1:0': SETTABLE, 'AHCI:0': SETTABLE } });
  });

  it('leave out the disks of a system without Storage, and a component that cannot be read', async () => {
    const noStorage = setup(baseDocs(), { Storage: undefined });
    expect(Object.keys(await noStorage.indicators.getSupportedIndicators!(noStorage.task))).toEqual(['chassis', 'system']);
    const docs = baseDocs();
    delete docs[`${S}/Storage/AHCI/Drives/0`];
    const broken = setup(docs);
    expect(await broken.indicators.getSupportedIndicators!(broken.task)).toEqual({
      chassis: { 'chassis-uuid': SETTABLE },
      system: { 'system-uuid': SETTABLE },
    });
  });

  it('read a drive LED’s state and set it with a PATCH of the drive', async () => {
    const { indicators, task, patches } = setup();
    expect(await indicators.getIndicatorState!(task, 'disk', 'RAID.1:0')).toBe('on');
    expect(await indicators.getIndicatorState!(task, 'disk', 'AHCI:0')).toBe('blinking');
    await indicators.setIndicatorState!(task, 'disk', 'AHCI:0', 'OFF');
    expect(patches).toEqual([[`${S}/Storage/AHCI/Drives/0`, { IndicatorLED: 'Off' }]]);
  });

  it('refuse a drive that has no LED or does not exist, as Ironic: an unknown indicator', async () => {
    const { indicators, task, patches, node } = setup();
    for (const name of ['RAID.1:1', 'RAID.1:7', '0', 'RAID.1:0:0']) {
      await expect(indicators.getIndicatorState!(task, 'disk', name)).rejects.toThrow(
        `Unknown indicator ${name} for component disk of node ${node.uuid}`,
      );
      await expect(indicators.setIndicatorState!(task, 'disk', name, 'on')).rejects.toThrow('Unknown indicator');
    }
    expect(patches).toEqual([]);
  });

  it('read only the drives of the indicator’s storage, and report one the BMC cannot serve as a Redfish failure', async () => {
    const docs = baseDocs();
    delete docs[`${S}/Storage/RAID.1/Drives/1`];
    const { indicators, task, node } = setup(docs);
    expect(await indicators.getIndicatorState!(task, 'disk', 'AHCI:0')).toBe('blinking');
    await expect(indicators.getIndicatorState!(task, 'disk', 'RAID.1:0')).rejects.toThrow(
      `Redfish get disk indicator RAID.1:0 state failed for node ${node.uuid}. Error: HTTP GET ${S}/Storage/RAID.1/Drives/1 returned code 404.`,
    );
  });
});
