/** Redfish virtual media insert and eject (Ironic's `_insert_vmedia`, `_eject_vmedia`) against a stub system. */
import { Logger } from '@aws-lambda-powertools/logger';
import { RedfishRequestError, type Resource } from '../../../functions/drivers/redfish/client';
import type { RedfishSystem } from '../../../functions/drivers/redfish/system';
import { ejectMedia, insertMedia } from '../../../functions/drivers/redfish/vmedia';
import { makeNode } from '../helpers/builders';

const refused = (status: number, why: string) =>
  new RedfishRequestError(`HTTP POST /x returned code ${status}. ${why}`, 'http', 'POST', '/x', status >= 500, status);

/** Devices by id; `refuse` maps a device id to the error its InsertMedia answers. */
function stubSystem(devices: Resource[], refuse: Record<string, Error> = {}) {
  const calls: string[] = [];
  const system = {
    async virtualMedia() {
      return devices.map((d) => ({ ...d }));
    },
    async insertMedia(media: Resource, image: string) {
      calls.push(`insert ${String(media.Id)}`);
      const err = refuse[String(media.Id)];
      if (err) throw err;
      Object.assign(
        devices.find((d) => d.Id === media.Id)!,
        { Inserted: true, Image: image },
      );
    },
    async ejectMedia(media: Resource) {
      calls.push(`eject ${String(media.Id)}`);
      Object.assign(
        devices.find((d) => d.Id === media.Id)!,
        { Inserted: false, Image: null },
      );
    },
  };
  return { system: system as unknown as RedfishSystem, calls, devices };
}

const task = () => ({ node: makeNode(), log: new Logger({ serviceName: 'test', logLevel: 'SILENT' }) });

describe('insertMedia', () => {
  it('ejects what the devices of that type hold, then inserts into a DVD drive serving as CD', async () => {
    const { system, calls, devices } = stubSystem([
      { Id: 'Floppy', MediaTypes: ['Floppy', 'USBStick'], Inserted: true, Image: 'http://f' },
      { Id: 'Dvd', MediaTypes: ['DVD'], Inserted: true, Image: 'http://old' },
    ]);
    await insertMedia(task(), system, 'http://new.iso', 'CD');
    expect(calls).toEqual(['eject Dvd', 'insert Dvd']);
    expect(devices.map((d) => [d.Id, d.Inserted, d.Image])).toEqual([
      ['Floppy', true, 'http://f'],
      ['Dvd', true, 'http://new.iso'],
    ]);
  });

  it('moves on from a device that refuses the image (400) to the next one', async () => {
    const { system, calls } = stubSystem(
      [
        { Id: 'Cd1', MediaTypes: ['CD'], Inserted: false },
        { Id: 'Cd2', MediaTypes: ['CD'], Inserted: false },
      ],
      { Cd1: refused(400, 'internal use only') },
    );
    await insertMedia(task(), system, 'http://new.iso', 'CD');
    expect(calls).toEqual(['insert Cd1', 'insert Cd2']);
  });

  it('fails with Ironic’s messages when no device takes the image, or none fits', async () => {
    const t = task();
    const one = stubSystem([{ Id: 'Cd', MediaTypes: ['CD'] }], { Cd: refused(400, 'unreachable') }).system;
    await expect(insertMedia(t, one, 'http://i.iso', 'CD')).rejects.toThrow(
      `Virtual media mount failed for node ${t.node.uuid} with image http://i.iso. Error: Inserting virtual media into CD failed for node ${t.node.uuid}, moving to next virtual media device, if available. HTTP POST /x returned code 400. unreachable`,
    );
    const two = stubSystem(
      [
        { Id: 'A', MediaTypes: ['CD'] },
        { Id: 'B', MediaTypes: ['CD'] },
      ],
      { A: refused(400, 'first'), B: refused(405, 'second') },
    ).system;
    await expect(insertMedia(t, two, 'http://i.iso', 'CD')).rejects.toThrow(
      /after multiple attempts\. First error: .*first\. Last error: .*second$/,
    );
    const server = stubSystem(
      [
        { Id: 'A', MediaTypes: ['CD'] },
        { Id: 'B', MediaTypes: ['CD'] },
      ],
      { A: refused(500, 'boom') },
    );
    await expect(insertMedia(t, server.system, 'http://i.iso', 'CD')).rejects.toThrow(
      `Virtual media mount failed for node ${t.node.uuid} with image http://i.iso. Error: HTTP POST /x returned code 500. boom`,
    );
    expect(server.calls).toEqual(['insert A']);
    const none = stubSystem([{ Id: 'Cd', MediaTypes: ['CD'] }]).system;
    await expect(insertMedia(t, none, 'http://i.iso', 'USBStick')).rejects.toThrow(
      `No suitable virtual media device found for node ${t.node.uuid} to mount image http://i.iso`,
    );
  });
});

describe('ejectMedia', () => {
  it('ejects inserted devices of one type, or of every type, and says whether it ejected any', async () => {
    const { system, calls } = stubSystem([
      { Id: 'Cd', MediaTypes: ['CD', 'DVD'], Inserted: true },
      { Id: 'Usb', MediaTypes: ['USBStick'], Inserted: true },
      { Id: 'Floppy', MediaTypes: ['Floppy'], Inserted: false },
    ]);
    expect(await ejectMedia(task(), system, 'Floppy')).toBe(false);
    expect(await ejectMedia(task(), system, 'USBStick')).toBe(true);
    expect(await ejectMedia(task(), system)).toBe(true);
    expect(calls).toEqual(['eject Usb', 'eject Cd']);
  });
});
