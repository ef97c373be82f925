/**
 * `driver_info/force_persistent_boot_device` as Ironic master's node_set_boot_device reads it:
 * Always and Never override the caller, Default (or none) keeps its choice, and the legacy
 * booleans of old releases force persistence only when true. Ironic refuses no value.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import type { ManagementInterface, Task } from '../../../functions/drivers/base';
import { bootDevicePersistence, setNodeBootDevice } from '../../../functions/drivers/boot-device';
import { makeNode } from '../helpers/builders';

const withForce = (value: unknown) => makeNode({ driver_info: value === undefined ? {} : { force_persistent_boot_device: value } });

describe('bootDevicePersistence', () => {
  it.each([undefined, null, 'Default'])('keeps the requested persistence when the value is %p', (value) => {
    expect(bootDevicePersistence(withForce(value), true)).toBe(true);
    expect(bootDevicePersistence(withForce(value), false)).toBe(false);
  });

  it('makes every change persistent with Always', () => {
    expect(bootDevicePersistence(withForce('Always'), false)).toBe(true);
    expect(bootDevicePersistence(withForce('Always'), true)).toBe(true);
  });

  it('makes no change persistent with Never, not even the final boot to disk', () => {
    expect(bootDevicePersistence(withForce('Never'), true)).toBe(false);
    expect(bootDevicePersistence(withForce('Never'), false)).toBe(false);
  });

  it.each([true, 'true', 'True', ' yes ', 'on', '1', 't', 1])('reads the legacy true value %p as Always', (value) => {
    expect(bootDevicePersistence(withForce(value), false)).toBe(true);
  });

  it.each([false, 'false', 'False', 'no', '0', 0])('reads the legacy false value %p as Default', (value) => {
    expect(bootDevicePersistence(withForce(value), false)).toBe(false);
    expect(bootDevicePersistence(withForce(value), true)).toBe(true);
  });

  it.each(['always', 'NEVER', 'sometimes', '', ['Always'], { a: 1 }])(
    'reads any other value (%p) as oslo bool_from_string does: not true, so the request stands',
    (value) => {
      expect(bootDevicePersistence(withForce(value), false)).toBe(false);
      expect(bootDevicePersistence(withForce(value), true)).toBe(true);
    },
  );
});

describe('setNodeBootDevice', () => {
  function management(calls: string[], failValidate = false): ManagementInterface {
    return {
      async validate() {
        calls.push('validate');
        if (failValidate) throw new Error('Missing redfish_address');
      },
      async setBootDevice(_task: Task, device: string, persistent?: boolean) {
        calls.push(`set ${device} ${String(persistent)}`);
      },
    } as unknown as ManagementInterface;
  }
  const task = (value: unknown): Task => ({ node: withForce(value), log: new Logger({ serviceName: 'test', logLevel: 'SILENT' }) });

  it('validates the management interface, then sets the device as the node forces it', async () => {
    const calls: string[] = [];
    await setNodeBootDevice(management(calls), task('Always'), 'pxe');
    await setNodeBootDevice(management(calls), task('Never'), 'disk', true);
    await setNodeBootDevice(management(calls), task(undefined), 'cdrom', true);
    expect(calls).toEqual(['validate', 'set pxe true', 'validate', 'set disk false', 'validate', 'set cdrom true']);
  });

  it('sets nothing when validation fails', async () => {
    const calls: string[] = [];
    await expect(setNodeBootDevice(management(calls, true), task('Always'), 'pxe')).rejects.toThrow('Missing redfish_address');
    expect(calls).toEqual(['validate']);
  });
});
