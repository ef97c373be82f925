/**
 * Ironic master's rule for a failed firmware update (its periodic `_query_update_failed` and
 * `_clear_updates`): a node in `clean failed`, `deploy failed` or `service failed` and in
 * maintenance loses the update's bookkeeping, and nothing else; any other node keeps it.
 */
import { discardFailedUpdates } from '../../../functions/common/firmware-bookkeeping';

const BOOKKEEPING = {
  redfish_fw_updates: [{ component: 'bios', url: 'http://i/bios-2.bin' }],
  redfish_fw_update_start_time: '2026-11-28T10:00:00Z',
  firmware_reboot_requested: true,
  bmc_fw_version_before_update: '1.0',
  firmware_cleanup: ['http'],
  agent_url: 'http://10.0.0.5:9999',
};

const node = (provision_state: string, maintenance: boolean, info: Record<string, unknown> = BOOKKEEPING) => ({
  uuid: '1be26c0b-03f2-4d2e-ae87-c02d7f33c123',
  provision_state,
  maintenance,
  driver_internal_info: { ...info },
});

describe('discardFailedUpdates', () => {
  it.each([['clean failed'], ['deploy failed'], ['service failed']])('discards the bookkeeping of a node %s in maintenance', (state) => {
    const n = node(state, true);
    expect(discardFailedUpdates(n)).toBe(true);
    expect(n.driver_internal_info).toEqual({ agent_url: 'http://10.0.0.5:9999' });
  });

  it.each([
    ['deploy failed', false],
    ['service wait', true],
    ['clean wait', true],
    ['active', true],
    ['inspect failed', true],
  ])('keeps it on a node %s (maintenance %s)', (state, maintenance) => {
    const n = node(state, maintenance);
    expect(discardFailedUpdates(n)).toBe(false);
    expect(n.driver_internal_info).toEqual(BOOKKEEPING);
  });

  it('changes nothing on a failed node in maintenance without updates', () => {
    const info = { agent_url: 'http://10.0.0.5:9999', firmware_reboot_requested: true };
    const n = node('deploy failed', true, info);
    const before = n.driver_internal_info;
    expect(discardFailedUpdates(n)).toBe(false);
    expect(n.driver_internal_info).toBe(before);
  });
});
