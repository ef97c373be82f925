/**
 * Failing a flow (Ironic's cleaning_error_handler / servicing_error_handler): a failed clean or
 * service step puts the node in maintenance with the flow's fault; a failure around the steps, or
 * of a deploy, does not; a node left in maintenance loses a firmware update's bookkeeping (Ironic
 * master's _query_update_failed).
 */
import { failFlow } from '../../../functions/conductor/flows/failure';
import type { NodeData } from '../../../functions/objects/node';
import { makeConductorContext, makeNode } from '../helpers/builders';

async function failed(overrides: Partial<NodeData>, flow: 'clean' | 'service' | 'deploy') {
  const ctx = makeConductorContext();
  const node = await ctx.nodes.create(makeNode(overrides));
  await failFlow(ctx, await ctx.nodes.reserve(node.uuid, { host: 'conductor:1', token: 'run:m', ttlSeconds: 60 }), flow, 'boom');
  return ctx.nodes.get(node.uuid);
}

const step = { interface: 'deploy', step: 'erase_devices', priority: 10, args: {} };

describe('a failed flow', () => {
  it('puts a node whose clean step failed in maintenance with fault "clean failure"', async () => {
    const node = await failed({ provision_state: 'cleaning', target_provision_state: 'available', clean_step: step }, 'clean');
    expect(node).toMatchObject({
      provision_state: 'clean failed',
      last_error: 'boom',
      maintenance: true,
      maintenance_reason: 'boom',
      fault: 'clean failure',
      clean_step: null,
      reservation: null,
    });
  });

  it('puts a node whose service step failed in maintenance with fault "service failure"', async () => {
    const node = await failed({ provision_state: 'service wait', target_provision_state: 'active', service_step: step }, 'service');
    expect(node).toMatchObject({ provision_state: 'service failed', maintenance: true, fault: 'service failure' });
  });

  it('leaves maintenance alone when no step was running, and for deploys', async () => {
    expect(await failed({ provision_state: 'cleaning', target_provision_state: 'available' }, 'clean')).toMatchObject({
      provision_state: 'clean failed',
      maintenance: false,
      fault: null,
    });
    expect(
      await failed(
        { provision_state: 'deploying', target_provision_state: 'active', deploy_step: step, driver: 'fake-hardware' },
        'deploy',
      ),
    ).toMatchObject({ provision_state: 'deploy failed', maintenance: false, fault: null });
  });

  it('powers a failed deploy off, but reboots a node with disable_power_off', async () => {
    const deploying = { provision_state: 'deploying', target_provision_state: 'active', driver: 'fake-hardware', power_state: 'power on' };
    expect(await failed(deploying, 'deploy')).toMatchObject({ provision_state: 'deploy failed', power_state: 'power off' });
    expect(await failed({ ...deploying, disable_power_off: true }, 'deploy')).toMatchObject({
      provision_state: 'deploy failed',
      power_state: 'power on',
    });
  });

  it('keeps a maintenance reason the operator gave', async () => {
    const node = await failed(
      { provision_state: 'cleaning', target_provision_state: 'available', clean_step: step, maintenance_reason: 'rack work' },
      'clean',
    );
    expect(node).toMatchObject({ maintenance: true, maintenance_reason: 'rack work' });
  });

  it("removes a failed firmware update's bookkeeping from a node left in maintenance, as master's _query_update_failed", async () => {
    const bookkeeping = {
      redfish_fw_updates: [{ component: 'bios', url: 'http://i/bios-2.bin' }],
      redfish_fw_update_start_time: '2026-11-27T10:00:00Z',
      firmware_reboot_requested: true,
      bmc_fw_version_before_update: '1.0',
      firmware_cleanup: ['http'],
      other: 'kept',
    };
    const cleaned = await failed(
      { provision_state: 'clean wait', target_provision_state: 'manageable', clean_step: step, driver_internal_info: bookkeeping },
      'clean',
    );
    expect(cleaned.driver_internal_info).toEqual({ other: 'kept' });
    const deploy = await failed(
      { provision_state: 'deploying', target_provision_state: 'active', driver: 'fake-hardware', driver_internal_info: bookkeeping },
      'deploy',
    );
    // Not in maintenance: master's periodic task leaves it until the operator sets maintenance.
    expect(deploy.driver_internal_info).toMatchObject({ redfish_fw_update_start_time: '2026-11-27T10:00:00Z' });
  });
});
