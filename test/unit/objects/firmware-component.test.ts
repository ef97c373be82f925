/**
 * FirmwareComponent and how a reading changes it (Ironic's sync_firmware_components, then
 * create/save): a new component starts with its version as the initial one; a changed version
 * becomes both the current and the last flashed one; the initial version never moves; an
 * unchanged reading writes nothing. The API shows the timestamps and the fields asked for.
 */
import { firmwareComponentView } from '../../../functions/api/controllers/node-firmware';
import { applyReading } from '../../../functions/db/firmware-components';
import { FirmwareComponent } from '../../../functions/objects/firmware-component';
import { MemoryFirmwareComponentStore } from '../helpers/memory-stores';

const NODE = '1be26c0b-03f2-4d2e-ae87-c02d7f33c123';
const T0 = '2026-11-27T10:00:00.000Z';
const T1 = '2026-11-27T11:00:00.000Z';

describe('applyReading', () => {
  it('creates a component read for the first time with its version as the initial one', () => {
    const created = applyReading(NODE, undefined, { component: 'bios', current_version: '1.0' }, T0);
    expect(created?.toData()).toEqual({
      node_uuid: NODE,
      component: 'bios',
      initial_version: '1.0',
      current_version: '1.0',
      last_version_flashed: null,
      vendor: null,
      model: null,
      serial_number: null,
      created_at: T0,
      updated_at: null,
    });
  });

  it("records the identity the hardware reports, and rewrites a component whose identity changed (Ironic's identity_changed)", () => {
    const stored = applyReading(NODE, undefined, { component: 'bmc', current_version: '1.0', model: 'vBMC 1' }, T0) as FirmwareComponent;
    expect(stored.toData()).toMatchObject({ vendor: null, model: 'vBMC 1', serial_number: null });
    expect(applyReading(NODE, stored, { component: 'bmc', current_version: '1.0', model: 'vBMC 1' }, T1)).toBeUndefined();
    const replaced = applyReading(NODE, stored, { component: 'bmc', current_version: '1.0', model: 'vBMC 2', serial_number: 'SN1' }, T1);
    expect(replaced?.toData()).toMatchObject({
      current_version: '1.0',
      last_version_flashed: null,
      model: 'vBMC 2',
      serial_number: 'SN1',
      updated_at: T1,
    });
  });

  it('records a new version as current and last flashed, keeping the initial one and created_at', () => {
    const stored = applyReading(NODE, undefined, { component: 'bmc', current_version: '1.0' }, T0) as FirmwareComponent;
    const flashed = applyReading(NODE, stored, { component: 'bmc', current_version: '2.0' }, T1);
    expect(flashed?.toData()).toMatchObject({
      initial_version: '1.0',
      current_version: '2.0',
      last_version_flashed: '2.0',
      created_at: T0,
      updated_at: T1,
    });
    expect(applyReading(NODE, flashed, { component: 'bmc', current_version: '2.0' }, T1)).toBeUndefined();
    expect(applyReading(NODE, stored, { component: 'bmc', current_version: '1.0' }, T1)).toBeUndefined();
  });

  it('rewrites a component whose last flashed version is not what runs (Ironic saves it), without moving the versions', () => {
    const odd = new FirmwareComponent({
      node_uuid: NODE,
      component: 'bios',
      initial_version: '1.0',
      current_version: '2.0',
      last_version_flashed: '3.0',
      created_at: T0,
      updated_at: null,
    });
    expect(applyReading(NODE, odd, { component: 'bios', current_version: '2.0' }, T1)?.toData()).toMatchObject({
      current_version: '2.0',
      last_version_flashed: '3.0',
      updated_at: T1,
    });
  });
});

describe('a store sync', () => {
  it('says what it created, updated and left, and keeps components the hardware no longer reports', async () => {
    const store = new MemoryFirmwareComponentStore();
    expect(
      await store.sync(NODE, [
        { component: 'bios', current_version: '1.0' },
        { component: 'bmc', current_version: '1.0' },
      ]),
    ).toEqual({ created: ['bios', 'bmc'], updated: [], unchanged: [] });
    expect(await store.sync(NODE, [{ component: 'bios', current_version: '1.1' }])).toEqual({
      created: [],
      updated: ['bios'],
      unchanged: [],
    });
    expect((await store.list(NODE)).map((c) => [c.component, c.current_version])).toEqual([
      ['bios', '1.1'],
      ['bmc', '1.0'],
    ]);
  });
});

describe('firmwareComponentView', () => {
  const component = new FirmwareComponent({
    node_uuid: NODE,
    component: 'bios',
    initial_version: '1.0',
    current_version: '2.0',
    last_version_flashed: '2.0',
    created_at: T0,
    updated_at: T1,
  });

  it("shows the timestamps as Ironic does, then the fields asked for, and never the node's UUID", () => {
    expect(firmwareComponentView(component, ['component', 'initial_version', 'current_version', 'last_version_flashed'])).toEqual({
      created_at: '2026-11-27T10:00:00+00:00',
      updated_at: '2026-11-27T11:00:00+00:00',
      component: 'bios',
      initial_version: '1.0',
      current_version: '2.0',
      last_version_flashed: '2.0',
    });
    expect(firmwareComponentView(component, ['current_version', 'created_at'])).toEqual({
      created_at: '2026-11-27T10:00:00+00:00',
      updated_at: '2026-11-27T11:00:00+00:00',
      current_version: '2.0',
    });
  });
});
