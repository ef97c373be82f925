/**
 * Ironic's node_cache_firmware_components as the conductor calls it at the start of cleaning and
 * servicing: what the firmware interface reads is recorded; a node without firmware support is
 * skipped; a BMC that cannot be read is logged and never fails the flow that called it.
 */
import { jest } from '@jest/globals';
import { cacheFirmwareComponents } from '../../../functions/conductor/firmware';
import { makeConductorContext, makeNode, storesWith } from '../helpers/builders';
import { MemoryFirmwareComponentStore } from '../helpers/memory-stores';

function setup() {
  const base = makeConductorContext();
  const firmwareComponents = new MemoryFirmwareComponentStore();
  const warn = jest.fn();
  const error = jest.fn();
  const log = Object.assign(Object.create(base.log) as typeof base.log, { warn, error });
  return { ctx: { ...base, log, stores: storesWith(base.nodes, { firmwareComponents }) }, firmwareComponents, warn, error };
}

it('skips a node whose firmware interface is no-firmware, saying so', async () => {
  const { ctx, warn, firmwareComponents } = setup();
  const node = makeNode({ firmware_interface: 'no-firmware' });
  await cacheFirmwareComponents(ctx, { node, log: ctx.log });
  expect(warn).toHaveBeenCalledWith('Firmware Components are not supported for node, skipping', { node: node.uuid });
  expect(await firmwareComponents.list(node.uuid)).toEqual([]);
});

it('logs and swallows a failure to reach the BMC (here: driver_info the redfish interface refuses)', async () => {
  const { ctx, error, firmwareComponents } = setup();
  const node = makeNode({ driver: 'redfish', firmware_interface: 'redfish', driver_info: {} });
  await expect(cacheFirmwareComponents(ctx, { node, log: ctx.log })).resolves.toBeUndefined();
  expect(error).toHaveBeenCalledWith('Caching of firmware components failed on node', { node: node.uuid, error: expect.any(String) });
  expect(await firmwareComponents.list(node.uuid)).toEqual([]);
});
