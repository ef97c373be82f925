/**
 * Virtual media (API 1.89 attach/detach, 1.93 list) on the local stack: API → conductor call (lock,
 * validation, 204) → cast → redfish management → the virtual BMC's VirtualMedia devices, which the
 * test reads back from the machine once the node's lock is released. The action runs after the
 * answer, with the node locked until it is done, as Ironic's worker; faults of the BMC become the
 * node's last_error (and an ERROR history event) after the 204; fake-hardware has no virtual media,
 * as Ironic's FakeManagement; locks, versions and bad input are refused with Ironic's statuses and
 * messages. With `image_download_source` `local` (the default) the conductor copies the image from
 * a loopback image server into the stack's bucket and the BMC gets a presigned URL of the copy.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jest } from '@jest/globals';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { selectRelease } from '../../functions/common/releases';
import { createDocumentClient } from '../../functions/db/client';
import { type Stores, createStores } from '../../functions/db/stores';
import type { VirtualMachine } from '../../local/fleet/machine';
import type { LocalStack } from '../../local/stack';
import { ApiClient, type Json, type Reply, faultOf, startStack } from './helpers/stack';

// Real services on a loaded machine: jest's project-level testTimeout is not applied (see jest.config.js).
jest.setTimeout(30_000);

let stack: LocalStack;
let api: ApiClient;
let raw: DynamoDBClient;
let stores: Stores;
const ISO = 'http://images.example.com/rescue.iso';

beforeAll(async () => {
  stack = await startStack({
    fleet: { count: 1, prefix: 'vmed' },
    functionEnv: { REDFISH_CONNECTION_ATTEMPTS: '2', REDFISH_CONNECTION_RETRY_INTERVAL: '0', REDFISH_READ_TIMEOUT: '2' },
  });
  api = new ApiClient(stack.url, '1.93');
  raw = new DynamoDBClient({
    endpoint: stack.endpoints.dynamodb,
    region: 'us-east-1',
    credentials: { accessKeyId: 'l', secretAccessKey: 'l' },
  });
  stores = createStores({ client: createDocumentClient(raw), tables: stack.tables, release: selectRelease('') });
}, 60_000);

afterAll(async () => {
  raw?.destroy();
  await stack?.stop();
});

async function redfishNode(): Promise<{ uuid: string; machine: VirtualMachine }> {
  const fleet = stack.fleet!;
  const machine = fleet.add();
  const reply = await api.request('POST', '/v1/nodes', { driver: 'redfish', driver_info: fleet.driverInfo(machine) });
  if (reply.status !== 201) throw new Error(reply.text);
  return { uuid: reply.body.uuid as string, machine };
}

const at = (version: string) => new ApiClient(stack.url, version);
// The BMC is handed these tests' URLs as they are (`http`); `local`, the default, is tested at the end.
const attach = (uuid: string, body: Json, client = api) =>
  client.request('POST', `/v1/nodes/${uuid}/vmedia`, { image_download_source: 'http', ...body });

/** The node once the conductor has done the action the 204 answered (its lock released). */
async function settled(uuid: string): Promise<Json> {
  for (let i = 0; i < 400; i++) {
    const node = (await api.get(`/v1/nodes/${uuid}`)).body;
    if (node.reservation === null) return node;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`node ${uuid} stayed locked`);
}

/** The status of a request whose action runs after the answer, once that action is done. */
async function done(request: Promise<Reply>, uuid: string): Promise<number> {
  const reply = await request;
  await settled(uuid);
  return reply.status;
}
const media = (m: VirtualMachine) => [m.media.Cd.inserted, m.media.Cd.image, m.media.Floppy.inserted, m.media.Floppy.image];

describe('virtual media on a redfish node', () => {
  it('attaches at 1.89, lists at 1.93 and detaches by device type or all, on the BMC', async () => {
    const { uuid, machine } = await redfishNode();
    expect(await done(attach(uuid, { device_type: 'cdrom', image_url: ISO, image_download_source: 'http' }, at('1.89')), uuid)).toBe(204);
    expect(media(machine)).toEqual([true, ISO, false, null]);
    expect(await done(attach(uuid, { device_type: 'disk', image_url: 'https://images.example.com/disk.img' }), uuid)).toBe(204);
    expect(media(machine)).toEqual([true, ISO, true, 'https://images.example.com/disk.img']);

    const listed = await api.get(`/v1/nodes/${uuid}/vmedia`);
    expect([listed.status, listed.body]).toEqual([
      200,
      [
        { media_types: ['CD', 'DVD'], inserted: true, image: ISO },
        { media_types: ['Floppy', 'USBStick'], inserted: true, image: 'https://images.example.com/disk.img' },
      ],
    ]);

    // An empty list names no device: nothing is ejected (Ironic passes [] on to the driver).
    expect(await done(api.request('DELETE', `/v1/nodes/${uuid}/vmedia?device_types=`), uuid)).toBe(204);
    expect(media(machine)).toEqual([true, ISO, true, 'https://images.example.com/disk.img']);
    expect(await done(api.request('DELETE', `/v1/nodes/${uuid}/vmedia?device_types=disk`), uuid)).toBe(204);
    expect(media(machine)).toEqual([true, ISO, false, null]);
    // Attaching again replaces what the CD holds.
    expect(await done(attach(uuid, { device_type: 'cdrom', image_url: 'http://images.example.com/other.iso' }), uuid)).toBe(204);
    expect(media(machine)).toEqual([true, 'http://images.example.com/other.iso', false, null]);
    expect(await done(at('1.89').request('DELETE', `/v1/nodes/${uuid}/vmedia`), uuid)).toBe(204);
    expect(media(machine)).toEqual([false, null, false, null]);
    const node = (await api.get(`/v1/nodes/${uuid}`)).body;
    expect([node.last_error, node.reservation]).toEqual([null, null]);
  });

  it('answers 204 before the BMC is touched, the node locked until the action is done', async () => {
    const { uuid, machine } = await redfishNode();
    await stores.nodes.save(Object.assign(await stores.nodes.get(uuid), { last_error: 'an old failure' }));
    // The conductor's queue held: the call has answered, its cast waits there.
    stack.setEventSourcesEnabled(false);
    let node: Json;
    try {
      expect((await attach(uuid, { device_type: 'cdrom', image_url: ISO })).status).toBe(204);
      node = (await api.get(`/v1/nodes/${uuid}`)).body;
      // last_error cleared by the call, the lock held for the action, nothing on the BMC yet.
      expect([node.last_error, typeof node.reservation, media(machine)]).toEqual([null, 'string', [false, null, false, null]]);
      const busy = await api.request('DELETE', `/v1/nodes/${uuid}/vmedia`);
      expect([busy.status, faultOf(busy).faultstring]).toEqual([
        409,
        `Node ${uuid} is locked by host ${String(node.reservation)}, please retry after the current operation is completed.`,
      ]);
    } finally {
      stack.setEventSourcesEnabled(true);
    }
    node = await settled(uuid);
    expect([node.last_error, media(machine)]).toEqual([null, [true, ISO, false, null]]);
  });

  it('does not exist below 1.89 (attach, detach) and 1.93 (list)', async () => {
    const { uuid, machine } = await redfishNode();
    expect((await attach(uuid, { device_type: 'cdrom', image_url: ISO }, at('1.88'))).status).toBe(404);
    expect((await at('1.88').request('DELETE', `/v1/nodes/${uuid}/vmedia`)).status).toBe(404);
    expect((await at('1.92').get(`/v1/nodes/${uuid}/vmedia`)).status).toBe(404);
    expect(media(machine)).toEqual([false, null, false, null]);
  });

  it('records a BMC that cannot fetch the image, or fails the insert, as last_error and an ERROR history event', async () => {
    const { uuid, machine } = await redfishNode();
    machine.setFaults({ mediaUnreachable: true });
    stack.setEventSourcesEnabled(false);
    try {
      // The 204 comes before the BMC is asked: no error yet, the node locked for the action.
      expect((await attach(uuid, { device_type: 'cdrom', image_url: ISO })).status).toBe(204);
      const answered = (await api.get(`/v1/nodes/${uuid}`)).body;
      expect([answered.last_error, typeof answered.reservation]).toEqual([null, 'string']);
    } finally {
      stack.setEventSourcesEnabled(true);
    }
    let node = await settled(uuid);
    expect(node.last_error).toMatch(
      new RegExp(
        `^Could not attach device cdrom to node ${uuid}: Virtual media mount failed for node ${uuid} with image ${ISO}\\. ` +
          `Error: Inserting virtual media into CD failed for node ${uuid}, moving to next virtual media device, if available\\. ` +
          `HTTP POST \\S+/VirtualMedia/Cd/Actions/VirtualMedia\\.InsertMedia returned code 400\\. .*could not be fetched by the BMC`,
      ),
    );
    expect(node.reservation).toBeNull();
    expect(media(machine)).toEqual([false, null, false, null]);
    const history = (await api.get(`/v1/nodes/${uuid}/history?detail=true`)).body.history as Json[];
    expect(history.map((h) => [h.severity, h.event])).toContainEqual(['ERROR', node.last_error]);

    machine.setFaults({ errorStatus: 500, errorMethods: ['POST'] });
    expect(await done(attach(uuid, { device_type: 'floppy', image_url: ISO }), uuid)).toBe(204);
    node = (await api.get(`/v1/nodes/${uuid}`)).body;
    expect(node.last_error).toMatch(
      new RegExp(`^Could not attach device floppy to node ${uuid}: Virtual media mount failed .* returned code 500`),
    );

    // The BMC well again: the next attach works and clears last_error.
    machine.clearFaults();
    expect((await attach(uuid, { device_type: 'floppy', image_url: ISO })).status).toBe(204);
    node = await settled(uuid);
    expect([node.last_error, media(machine)]).toEqual([null, [false, null, true, ISO]]);
  });

  it('answers a BMC that cannot be read with the driver’s error for the list', async () => {
    const { uuid, machine } = await redfishNode();
    machine.setFaults({ errorStatus: 503, errorMethods: ['GET'] });
    const listed = await api.get(`/v1/nodes/${uuid}/vmedia`);
    machine.clearFaults();
    expect(listed.status).toBeGreaterThanOrEqual(500);
    expect(faultOf(listed).faultstring).toMatch(/returned code 503/);
  });
});

describe('virtual media refusals', () => {
  it('fake-hardware: the list is unsupported (400); attach answers 204 and says why in last_error', async () => {
    const created = await api.request('POST', '/v1/nodes', { driver: 'fake-hardware' });
    const uuid = created.body.uuid as string;
    const listed = await api.get(`/v1/nodes/${uuid}/vmedia`);
    expect([listed.status, faultOf(listed).faultstring]).toEqual([
      400,
      'Driver fake-hardware does not support get_virtual_media (disabled or not implemented).',
    ]);
    expect((await attach(uuid, { device_type: 'cdrom', image_url: ISO, image_download_source: 'http' })).status).toBe(204);
    expect((await settled(uuid)).last_error).toBe(
      `Could not attach device cdrom to node ${uuid}: Driver fake-hardware does not support attach_virtual_media (disabled or not implemented).`,
    );
  });

  it('refuses bad bodies, URL schemes and device types (400), unknown nodes (404) and locked nodes (409)', async () => {
    const { uuid, machine } = await redfishNode();
    const checks: [Promise<Reply>, number, string][] = [
      [
        attach(uuid, { device_type: 'dvd', image_url: ISO }),
        400,
        "Schema error for vmedia: 'dvd' is not one of ['disk', 'cdrom', 'floppy']",
      ],
      [attach(uuid, { device_type: 'cdrom' }), 400, "Schema error for vmedia: 'image_url' is a required property"],
      [
        attach(uuid, { device_type: 'cdrom', image_url: ISO, image_download_source: 'ftp' }),
        400,
        "Schema error for vmedia: 'ftp' is not one of ['http', 'local', 'swift']",
      ],
      [attach(uuid, { device_type: 'cdrom', image_url: 'ftp://images.example.com/x.iso' }), 400, 'Unsupported or missing URL scheme: ftp'],
      [
        api.request('DELETE', `/v1/nodes/${uuid}/vmedia?device_types=cdrom,usb`),
        400,
        'Invalid device type(s) usb (valid are disk, cdrom, floppy)',
      ],
      [attach('no-such-node', { device_type: 'cdrom', image_url: ISO }), 404, 'Node no-such-node could not be found.'],
    ];
    for (const [reply, status, message] of checks) {
      const r = await reply;
      expect([r.status, faultOf(r).faultstring]).toEqual([status, message]);
    }
    await stores.nodes.reserve(uuid, { host: 'other-conductor', token: 'test', ttlSeconds: 600 });
    const busy = await attach(uuid, { device_type: 'cdrom', image_url: ISO });
    expect([busy.status, faultOf(busy).faultstring]).toEqual([
      409,
      `Node ${uuid} is locked by host other-conductor, please retry after the current operation is completed.`,
    ]);
    expect(media(machine)).toEqual([false, null, false, null]);
  });
});

describe('image_download_source local: the conductor serves a copy from the bucket', () => {
  const IMAGE = Buffer.from('an ISO the conductor copies\n'.repeat(3000));
  let server: Server;
  let base = '';
  beforeAll(async () => {
    server = createServer((req, res) => {
      res.writeHead(req.url === '/tools.iso' ? 200 : 404);
      res.end(req.url === '/tools.iso' ? IMAGE : undefined);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  const post = (uuid: string, body: Json) => api.request('POST', `/v1/nodes/${uuid}/vmedia`, body);

  it('gives the BMC a presigned URL of the copy (by default too), whose content is the source’s, and deletes it on detach', async () => {
    const { uuid, machine } = await redfishNode();
    for (const body of [
      { device_type: 'cdrom', image_url: `${base}/tools.iso` },
      { device_type: 'cdrom', image_url: `${base}/tools.iso`, image_download_source: 'local' },
    ]) {
      expect((await post(uuid, body)).status).toBe(204);
      expect((await settled(uuid)).last_error).toBeNull();
      const given = machine.media.Cd.image as string;
      expect(given).toContain(`/${stack.bootIsoBucket}/${uuid}/cdrom-${uuid}.iso?`);
      expect(new URL(given).searchParams.get('X-Amz-Expires')).toBe(String(6 * 3600));
      const copy = await fetch(given);
      expect(copy.status).toBe(200);
      expect(Buffer.from(await copy.arrayBuffer()).equals(IMAGE)).toBe(true);
    }
    const given = machine.media.Cd.image as string;
    expect(await done(api.request('DELETE', `/v1/nodes/${uuid}/vmedia?device_types=cdrom`), uuid)).toBe(204);
    expect(media(machine)).toEqual([false, null, false, null]);
    expect((await fetch(given)).status).toBe(404);
  });

  it('records a source the conductor cannot download, or an NFS URL, as last_error with Ironic’s messages, inserting nothing', async () => {
    const { uuid, machine } = await redfishNode();
    expect((await post(uuid, { device_type: 'cdrom', image_url: `${base}/gone.iso` })).status).toBe(204);
    expect((await settled(uuid)).last_error).toBe(
      `Could not attach device cdrom to node ${uuid}: Validation of image href ${base}/gone.iso failed, reason: Got HTTP code 404 instead of 200 in response to GET request.`,
    );
    expect((await post(uuid, { device_type: 'cdrom', image_url: 'nfs://files.example.com/share/tools.iso' })).status).toBe(204);
    expect((await settled(uuid)).last_error).toBe(
      `Could not attach device cdrom to node ${uuid}: image_download_source is set to 'local' but the image URL nfs://files.example.com/share/tools.iso uses the nfs protocol which cannot be downloaded by the conductor. Set image_download_source to 'http' or remove it to use the default.`,
    );
    // A BMC that refuses the copy: last_error names the source, not the presigned URL and its signature.
    machine.setFaults({ mediaUnreachable: true });
    expect((await post(uuid, { device_type: 'cdrom', image_url: `${base}/tools.iso` })).status).toBe(204);
    const refused = (await settled(uuid)).last_error as string;
    machine.clearFaults();
    expect(refused).toMatch(
      new RegExp(
        `^Could not attach device cdrom to node ${uuid}: Virtual media mount failed for node ${uuid} with image the conductor's copy of ${base}/tools\\.iso\\. `,
      ),
    );
    expect(refused).not.toContain('X-Amz-Signature');
    expect(media(machine)).toEqual([false, null, false, null]);
  });
});
