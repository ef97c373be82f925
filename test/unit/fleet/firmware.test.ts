/**
 * The virtual BMC's firmware, without HTTP: versions on the system, manager and chassis'
 * NetworkAdapters, the UpdateService's FirmwareInventory, SimpleUpdate making a Task that completes
 * after the simulated flashing (a BMC image runs at once, a BIOS or NIC image from the next power on), Targets naming the machine among
 * several, refusals, and the faults: firmwareUpdateFails, a NIC Task that starts only at a reset,
 * a BMC that keeps its version, a BMC that restarts after its update, and a BIOS image staged
 * through a Dell iDRAC's job queue (its Task purged, its job Scheduled or Failed).
 */
import { defaultSpec } from '../../../local/fleet/fleet';
import { UPDATE_DURATION_MS, bmcRestarting } from '../../../local/fleet/firmware';
import { VirtualMachine } from '../../../local/fleet/machine';
import { routeRedfish } from '../../../local/fleet/redfish';
import { parseFaults } from '../../../local/fleet/server';

function setup(count = 1) {
  const list = Array.from({ length: count }, (_, i) => new VirtualMachine(defaultSpec('fw', i, {})));
  const machines = new Map(list.map((m) => [m.id, m]));
  const send = (method: string, path: string, body?: unknown, query?: string) =>
    routeRedfish(machines, { method, path, body, ...(query === undefined ? {} : { query }) });
  const body = (method: string, path: string, data?: unknown) => send(method, path, data).body as Record<string, unknown>;
  return { list, send, body };
}

const SIMPLE_UPDATE = '/redfish/v1/UpdateService/Actions/UpdateService.SimpleUpdate';
const later = () => new Promise((resolve) => setTimeout(resolve, UPDATE_DURATION_MS + 20));

describe('the firmware of a virtual BMC', () => {
  it('shows its versions on the system, the manager and the FirmwareInventory', () => {
    const { body } = setup();
    expect(body('GET', '/redfish/v1')).toMatchObject({ UpdateService: { '@odata.id': '/redfish/v1/UpdateService' } });
    expect(body('GET', '/redfish/v1/Systems/fw-0').BiosVersion).toBe('1.0.0');
    expect(body('GET', '/redfish/v1/Managers/fw-0').FirmwareVersion).toBe('1.0.0');
    expect(body('GET', '/redfish/v1/UpdateService/FirmwareInventory').Members).toEqual([
      { '@odata.id': '/redfish/v1/UpdateService/FirmwareInventory/fw-0-BIOS' },
      { '@odata.id': '/redfish/v1/UpdateService/FirmwareInventory/fw-0-BMC' },
      { '@odata.id': '/redfish/v1/UpdateService/FirmwareInventory/fw-0-NIC' },
    ]);
    expect(body('GET', '/redfish/v1/UpdateService/FirmwareInventory/fw-0-BMC')).toMatchObject({ Version: '1.0.0', Updateable: true });
  });

  it('flashes a BMC image when its Task completes, and stages a BIOS image until the next power on', async () => {
    const { list, send, body } = setup();
    const bmc = send('POST', SIMPLE_UPDATE, { ImageURI: 'http://images/bmc-1.5.0.bin' });
    expect(bmc.status).toBe(202);
    const taskPath = (bmc.body as { '@odata.id': string })['@odata.id'];
    expect(bmc.headers).toEqual({ Location: taskPath });
    expect(body('GET', taskPath)).toMatchObject({ TaskState: 'Running' });
    const bios = send('POST', SIMPLE_UPDATE, { ImageURI: 'http://images/bios-2.0.0.bin' }).body as { '@odata.id': string };
    await later();
    expect(body('GET', taskPath)).toMatchObject({ TaskState: 'Completed', TaskStatus: 'OK', PercentComplete: 100 });
    expect(body('GET', bios['@odata.id'])).toMatchObject({ TaskState: 'Completed', TaskStatus: 'OK' });
    expect(body('GET', '/redfish/v1/Managers/fw-0').FirmwareVersion).toBe('1.5.0');
    expect(body('GET', '/redfish/v1/Systems/fw-0').BiosVersion).toBe('1.0.0');
    const machine = list[0] as VirtualMachine;
    machine.reset('ForceRestart');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(body('GET', '/redfish/v1/Systems/fw-0').BiosVersion).toBe('2.0.0');
    expect(body('GET', '/redfish/v1/UpdateService/FirmwareInventory/fw-0-BIOS').Version).toBe('2.0.0');
  });

  it('serves one NetworkAdapter per NIC on the chassis, whose controller runs a NIC image from the next power on', async () => {
    const { list, send, body } = setup();
    const machine = list[0] as VirtualMachine;
    const adapters = '/redfish/v1/Chassis/fw-0/NetworkAdapters';
    expect(body('GET', '/redfish/v1/Chassis/fw-0').NetworkAdapters).toEqual({ '@odata.id': adapters });
    expect(body('GET', adapters).Members).toEqual(machine.spec.nics.map((_, i) => ({ '@odata.id': `${adapters}/NIC${i}` })));
    expect(body('GET', `${adapters}/NIC0`)).toMatchObject({
      Id: 'NIC0',
      Manufacturer: 'Red Hat, Inc.',
      Model: 'Virtio network device',
      SerialNumber: expect.stringMatching(/^NA[0-9A-F]{10}0$/),
      Controllers: [{ FirmwarePackageVersion: '1.0.0' }],
    });
    expect(send('GET', `${adapters}/NIC${machine.spec.nics.length}`).status).toBe(404);
    expect(send('PATCH', `${adapters}/NIC0`, {}).status).toBe(405);

    expect(send('POST', SIMPLE_UPDATE, { ImageURI: 'http://images/nic-2.1.bin' }).status).toBe(202);
    await later();
    expect(body('GET', '/redfish/v1/UpdateService/FirmwareInventory/fw-0-NIC').Version).toBe('1.0.0');
    machine.reset('ForceRestart');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(body('GET', `${adapters}/NIC0`)).toMatchObject({ Controllers: [{ FirmwarePackageVersion: '2.1' }] });
    expect(body('GET', '/redfish/v1/UpdateService/FirmwareInventory/fw-0-NIC').Version).toBe('2.1');
  });

  it('updates the machine Targets names when it has several, and refuses an update that names none', async () => {
    const { send, body } = setup(2);
    const missing = send('POST', SIMPLE_UPDATE, { ImageURI: 'http://images/bmc-2.0.bin' });
    expect([missing.status, JSON.stringify(missing.body)]).toEqual([400, expect.stringContaining('ActionParameterMissing')]);
    expect(send('POST', SIMPLE_UPDATE, { ImageURI: 'http://images/bmc-2.0.bin', Targets: ['/redfish/v1/Systems/fw-1'] }).status).toBe(202);
    await later();
    expect(body('GET', '/redfish/v1/Managers/fw-1').FirmwareVersion).toBe('2.0');
    expect(body('GET', '/redfish/v1/Managers/fw-0').FirmwareVersion).toBe('1.0.0');
    expect(send('POST', SIMPLE_UPDATE, { ImageURI: 'http://images/bmc-2.0.bin', Targets: ['/redfish/v1/Systems/nope'] }).status).toBe(400);
  });

  it('refuses an image whose name says nothing it holds', () => {
    const { send } = setup();
    const reply = send('POST', SIMPLE_UPDATE, { ImageURI: 'http://images/firmware.bin' });
    expect(reply.status).toBe(400);
    expect(JSON.stringify(reply.body)).toContain('name it bios-<version>.bin, bmc-<version>.bin or nic-<version>.bin');
    expect(send('GET', '/redfish/v1/TaskService/Tasks').body).toMatchObject({ 'Members@odata.count': 0 });
  });

  it('fails the Task and changes nothing with the firmwareUpdateFails fault', async () => {
    const { list, send, body } = setup();
    expect(parseFaults({ firmwareUpdateFails: 'yes' })).toBe('firmwareUpdateFails must be true or false');
    (list[0] as VirtualMachine).setFaults({ firmwareUpdateFails: true });
    const task = send('POST', SIMPLE_UPDATE, { ImageURI: 'http://images/bmc-9.0.bin' }).body as { '@odata.id': string };
    await later();
    expect(body('GET', task['@odata.id'])).toMatchObject({
      TaskState: 'Exception',
      TaskStatus: 'Critical',
      Messages: [expect.objectContaining({ Severity: 'Critical', Message: expect.stringContaining('(injected fault)') })],
    });
    expect(body('GET', '/redfish/v1/Managers/fw-0').FirmwareVersion).toBe('1.0.0');
  });

  it('applies a BIOS image as its Task completes when the machine was reset while it ran', async () => {
    const { list, send, body } = setup();
    const task = send('POST', SIMPLE_UPDATE, { ImageURI: 'http://images/bios-2.2.0.bin' }).body as { '@odata.id': string };
    (list[0] as VirtualMachine).reset('ForceRestart');
    await later();
    expect(body('GET', task['@odata.id'])).toMatchObject({ TaskState: 'Completed', TaskStatus: 'OK' });
    expect(body('GET', '/redfish/v1/Systems/fw-0').BiosVersion).toBe('2.2.0');
  });

  it('keeps a NIC Task in Starting until the machine is reset with the nicUpdateStartsOnReset fault', async () => {
    const { list, send, body } = setup();
    const machine = list[0] as VirtualMachine;
    machine.setFaults({ nicUpdateStartsOnReset: true });
    const task = send('POST', SIMPLE_UPDATE, { ImageURI: 'http://images/nic-2.1.bin' }).body as { '@odata.id': string };
    await later();
    expect(body('GET', task['@odata.id'])).toMatchObject({ TaskState: 'Starting', PercentComplete: 0 });
    machine.reset('ForceRestart');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(body('GET', task['@odata.id'])).toMatchObject({ TaskState: 'Running' });
    await later();
    expect(body('GET', task['@odata.id'])).toMatchObject({ TaskState: 'Completed' });
    // Started by the reset, the image runs at once: no second reset needed.
    expect(body('GET', '/redfish/v1/UpdateService/FirmwareInventory/fw-0-NIC').Version).toBe('2.1');
  });

  it('completes a BMC Task keeping the old version with the bmcVersionUnchanged fault', async () => {
    const { list, send, body } = setup();
    (list[0] as VirtualMachine).setFaults({ bmcVersionUnchanged: true });
    const task = send('POST', SIMPLE_UPDATE, { ImageURI: 'http://images/bmc-2.0.bin' }).body as { '@odata.id': string };
    await later();
    expect(body('GET', task['@odata.id'])).toMatchObject({ TaskState: 'Completed', TaskStatus: 'OK' });
    expect(body('GET', '/redfish/v1/Managers/fw-0').FirmwareVersion).toBe('1.0.0');
  });

  it('restarts the BMC for bmcRestartMs after its own update: its Tasks answer 503, then it is back', async () => {
    const { list, send, body } = setup();
    const machine = list[0] as VirtualMachine;
    expect(parseFaults({ bmcRestartMs: -1 })).toBe(
      'slowMs, errorCount, bmcRestartMs, bootModeDelayMs and postRejectsBootOverride must be whole numbers',
    );
    machine.setFaults({ bmcRestartMs: 200 });
    const task = send('POST', SIMPLE_UPDATE, { ImageURI: 'http://images/bmc-2.0.bin' }).body as { '@odata.id': string };
    expect(bmcRestarting(machine)).toBe(false);
    await later();
    expect(body('GET', '/redfish/v1/Managers/fw-0').FirmwareVersion).toBe('2.0');
    expect(bmcRestarting(machine)).toBe(true);
    expect(send('GET', task['@odata.id']).status).toBe(503);
    await new Promise((resolve) => setTimeout(resolve, 220));
    expect(bmcRestarting(machine)).toBe(false);
    expect(body('GET', task['@odata.id'])).toMatchObject({ TaskState: 'Completed' });
  });

  it('stages a BIOS image as a Dell iDRAC with idracJobQueue: the Task is purged, its job Scheduled until the next power on', async () => {
    const { list, send, body } = setup();
    const machine = list[0] as VirtualMachine;
    expect(parseFaults({ idracJobQueue: 'later' })).toBe('idracJobQueue must be "staged" or "downloadFails"');
    expect(body('GET', '/redfish/v1/Managers/fw-0').Links).not.toHaveProperty('Oem');
    expect(send('GET', '/redfish/v1/Managers/fw-0/Oem/Dell/Jobs').status).toBe(404);
    machine.setFaults({ idracJobQueue: 'staged' });
    const queue = '/redfish/v1/Managers/fw-0/Oem/Dell/Jobs';
    expect(body('GET', '/redfish/v1/Managers/fw-0').Links).toMatchObject({ Oem: { Dell: { Jobs: { '@odata.id': queue } } } });
    const task = send('POST', SIMPLE_UPDATE, { ImageURI: 'http://images/bios-3.0.0.bin' }).body as { '@odata.id': string; Id: string };
    expect(task.Id).toMatch(/^JID_\d{12}$/);
    // Downloading: the Task is New (not started), its job Downloading.
    expect(body('GET', task['@odata.id'])).toMatchObject({ TaskState: 'New', PercentComplete: 0 });
    const jobs = (expand: boolean) =>
      (send('GET', queue, undefined, expand ? '$expand=.($levels=1)' : undefined).body as { Members: unknown[] }).Members;
    expect(jobs(false)).toEqual([{ '@odata.id': `${queue}/${task.Id}` }]);
    expect(jobs(true)).toEqual([expect.objectContaining({ Id: task.Id, JobState: 'Downloading' })]);
    await later();
    // Downloaded: the BMC purged the Task; the job waits for the reboot, the image staged.
    expect(send('GET', task['@odata.id']).status).toBe(404);
    expect(jobs(true)).toEqual([expect.objectContaining({ Id: task.Id, JobState: 'Scheduled' })]);
    expect(body('GET', `${queue}/${task.Id}`)).toMatchObject({ JobState: 'Scheduled' });
    expect(body('GET', '/redfish/v1/Systems/fw-0').BiosVersion).toBe('1.0.0');
    machine.reset('ForceRestart');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(body('GET', '/redfish/v1/Systems/fw-0').BiosVersion).toBe('3.0.0');
    expect(jobs(true)).toEqual([expect.objectContaining({ Id: task.Id, JobState: 'Completed' })]);
  });

  it('with idracJobQueue downloadFails the Task is purged too, its job Failed and nothing staged', async () => {
    const { list, send, body } = setup();
    const machine = list[0] as VirtualMachine;
    machine.setFaults({ idracJobQueue: 'downloadFails' });
    const task = send('POST', SIMPLE_UPDATE, { ImageURI: 'http://images/bios-3.0.0.bin' }).body as { '@odata.id': string; Id: string };
    await later();
    expect(send('GET', task['@odata.id']).status).toBe(404);
    expect(body('GET', `/redfish/v1/Managers/fw-0/Oem/Dell/Jobs/${task.Id}`)).toMatchObject({ JobState: 'Failed' });
    machine.reset('ForceRestart');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(body('GET', '/redfish/v1/Systems/fw-0').BiosVersion).toBe('1.0.0');
    // A BMC image is not staged through the job queue: its Task runs as usual.
    const bmc = send('POST', SIMPLE_UPDATE, { ImageURI: 'http://images/bmc-2.0.bin' }).body as { '@odata.id': string };
    expect(body('GET', bmc['@odata.id'])).toMatchObject({ TaskState: 'Running' });
  });
});
