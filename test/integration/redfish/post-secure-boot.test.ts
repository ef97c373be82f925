/**
 * Two of Ironic master's redfish management behaviours over real HTTP to the virtual fleet: a boot
 * device PATCH an HPE BMC refuses while the system is in POST (`postRejectsBootOverride`, 400
 * `iLO.2.14.UnableToModifyDuringSystemPOST`) is tried again up to `post_boot_retry_attempts` times,
 * and a secure boot state the BMC applies only at the next boot (`secureBootApply`) has the node
 * rebooted and waited for, then put back in its power state, or fails with master's timeout error.
 */
import { createRedfishInterfaces } from '../../../functions/drivers/redfish/index';
import { TEST_CONFIG, failure, fleetForFile } from './helpers';

// 3 tries, 1 s apart and more (Ironic: 6, from 5 s); secure boot waits of 3 s at most, polled every 100 ms.
const redfish = createRedfishInterfaces({
  ...TEST_CONFIG,
  postBootRetryAttempts: 3,
  postBootRetryDelaySeconds: 1,
  bootModeConfigTimeoutSeconds: 3,
  bootModeConfigIntervalMs: 100,
});

const files = fleetForFile('post');
const setup = files.setup;

const bootPatches = (machine: ReturnType<typeof setup>['machine']) =>
  machine.requests.filter((r) => r.method === 'PATCH' && r.path.endsWith(`/Systems/${machine.id}`)).length;

describe('redfish set boot device while the BMC is in POST', () => {
  it('a BMC refusing 2 PATCHes: tried again after 1 and 2 s, then set', async () => {
    const { machine, task } = setup();
    machine.setFaults({ postRejectsBootOverride: 2 });
    const started = Date.now();
    await redfish.management.setBootDevice(task, 'pxe', false);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_900);
    expect(bootPatches(machine)).toBe(3);
    expect(machine.boot).toMatchObject({ target: 'Pxe', enabled: 'Once' });
  });

  it('a BMC refusing more than post_boot_retry_attempts PATCHes: Ironic’s error with the BMC’s refusal', async () => {
    const { machine, node, task } = setup();
    machine.setFaults({ postRejectsBootOverride: 5 });
    const { error } = await failure(() => redfish.management.setBootDevice(task, 'pxe', false));
    expect(error.message).toMatch(
      new RegExp(
        `^Redfish exception occurred\\. Error: Redfish set boot device failed for node ${node.uuid}\\. Error: HTTP PATCH \\S+ returned code 400\\. .*'MessageId': 'iLO\\.2\\.14\\.UnableToModifyDuringSystemPOST'`,
      ),
    );
    expect(bootPatches(machine)).toBe(3);
    expect(machine.faults.postRejectsBootOverride).toBe(2);
    expect(machine.boot.target).toBe('None');
  });
});

describe('redfish set secure boot state on a BMC that applies it at the next boot', () => {
  it('secureBootApply reboot: rebooted, waited for, and powered off again', async () => {
    const { machine, task } = setup();
    machine.setFaults({ secureBootApply: 'reboot' });
    await redfish.management.setSecureBootState(task, true);
    expect(machine.secureBoot).toBe(true);
    // Off before: powered on (the job runs as it boots), then off again.
    expect(machine.resets).toEqual(['On', 'ForceOff']);
    expect(machine.powerState).toBe('Off');
    expect(await redfish.management.getSecureBootState(task)).toBe(true);
  });

  it('secureBootApply reboot on a machine that was on: it stays on', async () => {
    const { machine, task } = setup();
    machine.reset('On');
    machine.setFaults({ secureBootApply: 'reboot' });
    await redfish.management.setSecureBootState(task, true);
    expect(machine.secureBoot).toBe(true);
    expect(machine.powerState).toBe('On');
  });

  it('secureBootApply never: Ironic’s timeout error after boot_mode_config_timeout', async () => {
    const { machine, node, task } = setup();
    machine.setFaults({ secureBootApply: 'never' });
    const { error, ms } = await failure(() => redfish.management.setSecureBootState(task, true));
    expect(error.message).toBe(
      `Redfish exception occurred. Error: Timeout reached while waiting for secure boot state of node ${node.uuid} to become True, current is False`,
    );
    expect(ms).toBeGreaterThanOrEqual(2_900);
    expect(ms).toBeLessThan(15_000);
    expect(machine.secureBoot).toBe(false);
    // The reboot happened; the machine is left as the failure found it (as Ironic does).
    expect(machine.resets).toEqual(['On']);
  }, 30_000);
});
