import {
  filterTargetRaidConfig,
  logicalDiskProperties,
  updateRaidInfo,
  updatedCapabilities,
  validateRaidConfig,
} from '../../../functions/drivers/raid';
import { makeNode } from '../helpers/builders';

const disk = (extra: Record<string, unknown> = {}) => ({ raid_level: '1', size_gb: 100, ...extra });

describe('RAID configurations', () => {
  it.each([
    [{ logical_disks: [] }, '[] is too short'],
    [{ disks: [] }, "'logical_disks' is a required property"],
    [{ logical_disks: [{ size_gb: 1 }] }, "'raid_level' is a required property"],
    [{ logical_disks: [disk({ raid_level: '7' })] }, "'7' is not one of ['JBOD', '0', '1', '2', '5', '6', '1+0', '5+0', '6+0']"],
    [{ logical_disks: [disk({ size_gb: 'big' })] }, "'big' is not one of ['MAX']"],
    [{ logical_disks: [disk({ number_of_physical_disks: 0 })] }, '0 is less than or equal to the minimum of 0'],
    [{ logical_disks: [disk({ physical_disks: ['sda'] })] }, "'controller' is a dependency of 'physical_disks'"],
  ])('refuses %j: %s', (config, message) => {
    expect(() => validateRaidConfig(config)).toThrow(`RAID config validation error: ${message}`);
  });

  it('takes a valid configuration, and refuses two root volumes', () => {
    expect(() => validateRaidConfig({ logical_disks: [disk({ is_root_volume: true }), disk({ size_gb: 'MAX' })] })).not.toThrow();
    expect(() => validateRaidConfig({ logical_disks: [disk({ is_root_volume: true }), disk({ is_root_volume: true })] })).toThrow(
      'Raid config cannot have more than one root volume. 2 root volumes were specified',
    );
  });

  it('describes every property a logical disk may have, required ones first', () => {
    expect(Object.keys(logicalDiskProperties()).slice(0, 2)).toEqual(['raid_level', 'size_gb']);
    expect(logicalDiskProperties().physical_disks).toMatch(/^The physical disks to use/);
  });

  it('filters the target by root volume, refusing an empty result', () => {
    const node = makeNode({ target_raid_config: { logical_disks: [disk({ is_root_volume: true }), disk({ raid_level: '0' })] } });
    expect(filterTargetRaidConfig(node, { createRootVolume: false }).logical_disks).toEqual([disk({ raid_level: '0' })]);
    expect(filterTargetRaidConfig(node, { createNonrootVolumes: false }).logical_disks).toEqual([disk({ is_root_volume: true })]);
    expect(() => filterTargetRaidConfig(node, { createRootVolume: false, createNonrootVolumes: false })).toThrow(
      `Node ${node.uuid} has empty target RAID configuration after skipping root volume and skipping non-root volumes.`,
    );
    expect(() => filterTargetRaidConfig(makeNode({ target_raid_config: {} }))).toThrow('has no target RAID configuration.');
  });

  it('updates capabilities as Ironic does: the new value replaces the old, others keep their order', () => {
    expect(updatedCapabilities('boot_mode:uefi,raid_level:0', { raid_level: '1' })).toBe('boot_mode:uefi,raid_level:1');
    expect(updatedCapabilities(undefined, { raid_level: '1' })).toBe('raid_level:1');
    expect(() => updatedCapabilities('boot_mode', { raid_level: '1' })).toThrow("Invalid capabilities string 'boot_mode'.");
  });

  it('records a configuration without a root volume without touching the properties', () => {
    const node = makeNode({ properties: { local_gb: 10 } });
    updateRaidInfo(node, { logical_disks: [disk()] });
    expect(node.raid_config).toMatchObject({ logical_disks: [disk()] });
    expect(node.properties).toEqual({ local_gb: 10 });
  });
});
