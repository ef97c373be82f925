/**
 * The requests of the differential corpus about RAID (API 1.12): setting a node's target RAID
 * configuration, with fake-hardware's RAID interface checking it against the RAID schema, the
 * refusals, and the logical disk properties a driver describes. Runs last, on a node of its own.
 */
import { FD, MISSING, type Step, V, del, get, post, put } from './corpus-helpers';

const RAID = '/v1/nodes/rd1/states/raid';
const SHOW = '/v1/nodes/rd1?fields=raid_config,target_raid_config';
const disk = (extra: Record<string, unknown> = {}) => ({ raid_level: '1', size_gb: 100, ...extra });

export const RAID_STEPS: Step[] = [
  post('create for RAID', { ...FD, name: 'rd1' }),
  put('set a target RAID configuration', RAID, {
    logical_disks: [disk({ is_root_volume: true }), disk({ raid_level: '5', size_gb: 'MAX' })],
  }),
  get('the target RAID configuration', SHOW),
  get('the target in the node states', '/v1/nodes/rd1/states'),
  get('the RAID fields at 1.11', '/v1/nodes/rd1', '1.11'),
  put('set a target at 1.11', RAID, { logical_disks: [disk()] }, '1.11'),
  put('set a target of an unknown node', `/v1/nodes/${MISSING}/states/raid`, { logical_disks: [disk()] }),
  put('a target that is a list', RAID, [disk()]),
  put('a target that is a string', RAID, 'raid1'),
  put('a target without logical disks', RAID, { disks: [] }),
  put('a target with no logical disk', RAID, { logical_disks: [] }),
  put('a logical disk without a RAID level', RAID, { logical_disks: [{ size_gb: 10 }] }),
  put('an unknown RAID level', RAID, { logical_disks: [disk({ raid_level: '7' })] }),
  put('a size that is neither a number nor MAX', RAID, { logical_disks: [disk({ size_gb: 'big' })] }),
  put('a negative size', RAID, { logical_disks: [disk({ size_gb: -1 })] }),
  put('no physical disks at all', RAID, { logical_disks: [disk({ number_of_physical_disks: 0 })] }),
  put('physical disks without a controller', RAID, { logical_disks: [disk({ physical_disks: ['sda', 'sdb'] })] }),
  put('an unknown logical disk property', RAID, { logical_disks: [disk({ colour: 'blue' })] }),
  put('two root volumes', RAID, { logical_disks: [disk({ is_root_volume: true }), disk({ is_root_volume: true })] }),
  get('refused targets changed nothing', SHOW),
  put('clear the target', RAID, {}),
  get('the cleared target', SHOW),
  get('logical disk properties', '/v1/drivers/fake-hardware/raid/logical_disk_properties'),
  get('logical disk properties at 1.11', '/v1/drivers/fake-hardware/raid/logical_disk_properties', '1.11'),
  get('logical disk properties of an unknown driver', '/v1/drivers/nope/raid/logical_disk_properties'),
  del('delete rd1', '/v1/nodes/rd1'),
  get('RAID of a node that is gone', `${SHOW}`, V),
];
