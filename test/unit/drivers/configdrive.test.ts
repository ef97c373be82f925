/**
 * Config drives built from the JSON object of the provision request (Ironic's build_configdrive
 * with openstacksdk's populate_directory), read back the way the virtual agent and cloud-init read
 * them; and what the virtual agent does with what it is handed (IPA's get_configdrive).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync, gzipSync } from 'node:zlib';
import { buildConfigdrive, configdriveImage } from '../../../functions/drivers/configdrive';
import { fetchConfigdrive, inspectConfigdrive } from '../../../local/fleet/agent/configdrive';
import { readIso } from '../../../local/fleet/agent/iso9660';

const NODE = { uuid: '1be26c0b-03f2-4d2e-ae87-c02d7f33c123', name: 'node-7' };
const filesOf = (encoded: string) => {
  const iso = readIso(gunzipSync(Buffer.from(encoded, 'base64')));
  expect(iso.volumeId).toBe('config-2');
  return Object.fromEntries([...iso.files].map(([path, data]) => [path, data.toString('utf8')]));
};

describe('building a config drive from JSON', () => {
  it('writes meta_data (with the node’s uuid and name), user_data, network_data and vendor_data2 for both versions', () => {
    const files = filesOf(
      buildConfigdrive(NODE, {
        meta_data: { hostname: 'hé', public_keys: { k: 'ssh-ed25519 AAA' } },
        user_data: '#cloud-config\nhostname: x\n',
        network_data: { links: [{ id: 'eth0' }] },
        vendor_data: { v: 1 },
      }),
    );
    for (const version of ['2012-08-10', 'latest']) {
      // Python's json.dump: ', ' and ': ' separators, non-ASCII escaped, the defaults added last.
      expect(files[`openstack/${version}/meta_data.json`]).toBe(
        '{"hostname": "h\\u00e9", "public_keys": {"k": "ssh-ed25519 AAA"}, "uuid": "1be26c0b-03f2-4d2e-ae87-c02d7f33c123", "name": "node-7"}',
      );
      expect(files[`openstack/${version}/user_data`]).toBe('#cloud-config\nhostname: x\n');
      expect(files[`openstack/${version}/network_data.json`]).toBe('{"links": [{"id": "eth0"}]}');
      expect(files[`openstack/${version}/vendor_data2.json`]).toBe('{"v": 1}');
    }
    expect(Object.keys(files)).toHaveLength(8);
  });

  it('keeps a given uuid and name, writes user_data given as JSON as JSON text, and leaves out what is empty', () => {
    const files = filesOf(
      buildConfigdrive(
        { uuid: NODE.uuid, name: null },
        { meta_data: { uuid: 'mine' }, user_data: { a: [1, true, null] }, network_data: {} },
      ),
    );
    expect(files['openstack/latest/meta_data.json']).toBe('{"uuid": "mine"}');
    expect(files['openstack/latest/user_data']).toBe('{"a": [1, true, null]}');
    expect(Object.keys(files).sort()).toEqual([
      'openstack/2012-08-10/meta_data.json',
      'openstack/2012-08-10/user_data',
      'openstack/latest/meta_data.json',
      'openstack/latest/user_data',
    ]);
    const bare = filesOf(buildConfigdrive({ uuid: NODE.uuid, name: null }, { user_data: '' }));
    expect(bare).toEqual({
      'openstack/2012-08-10/meta_data.json': `{"uuid": "${NODE.uuid}"}`,
      'openstack/latest/meta_data.json': `{"uuid": "${NODE.uuid}"}`,
    });
  });

  it('hands an object to the agent as an image, a string as it is, and nothing when unset', () => {
    const built = configdriveImage({ ...NODE, instance_info: { configdrive: { meta_data: {} } } });
    expect(filesOf(built as string)['openstack/latest/meta_data.json']).toContain(NODE.uuid);
    expect(configdriveImage({ ...NODE, instance_info: { configdrive: 'http://cd/x' } })).toBe('http://cd/x');
    expect(configdriveImage({ ...NODE, instance_info: { configdrive: '' } })).toBeUndefined();
    expect(configdriveImage({ ...NODE, instance_info: {} })).toBeUndefined();
  });
});

describe('the virtual agent’s config drive', () => {
  let server: Server;
  let base: string;
  const image = buildConfigdrive(NODE, { meta_data: { hostname: 'h' } });

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/cd.b64') res.end(image);
      else if (req.url === '/cd.iso') res.end(gunzipSync(Buffer.from(image, 'base64')));
      else res.writeHead(404).end('no such config drive');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('unpacks an inline image or one downloaded, base64 or raw, and finds what cloud-init finds', async () => {
    for (const source of [image, `${base}/cd.b64`, `${base}/cd.iso`]) {
      const disk = inspectConfigdrive(await fetchConfigdrive(source, NODE.uuid));
      expect(disk.label).toBe('config-2');
      expect(JSON.parse(disk.files['openstack/latest/meta_data.json'] ?? '')).toEqual({ hostname: 'h', uuid: NODE.uuid, name: 'node-7' });
    }
  });

  it('fails as IPA does on what it cannot fetch or unpack, and records an image that is no ISO as unreadable', async () => {
    await expect(fetchConfigdrive(`${base}/missing`, NODE.uuid)).rejects.toMatchObject({
      type: 'DeploymentError',
      details: expect.stringContaining('Got status code 404, response body no such config drive'),
    });
    await expect(fetchConfigdrive('not base64!', NODE.uuid)).rejects.toMatchObject({
      details: expect.stringContaining('is not base64 encoded'),
    });
    await expect(fetchConfigdrive(Buffer.from('plain').toString('base64'), NODE.uuid)).rejects.toMatchObject({
      details: expect.stringContaining('Encountered error while decompressing and writing config drive'),
    });
    const junk = inspectConfigdrive(gunzipSync(gzipSync(Buffer.from('no iso here'))));
    expect(junk).toMatchObject({ label: null, files: {}, unreadable: expect.stringContaining('not an ISO 9660 image') });
  });
});
