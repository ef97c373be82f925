/**
 * Ironless's config drive images read by a tool that is not Ironless's: Debian's isoinfo (the
 * genisoimage package Ironic's configdrive building depends on) finds the `config-2` label, the
 * Joliet and Rock Ridge extensions, and the same file contents through Rock Ridge, Joliet and plain
 * ISO 9660 names.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { buildConfigdrive } from '../../functions/drivers/configdrive';

const run = promisify(execFile);
let dir: string;
let iso: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'configdrive-'));
  iso = join(dir, 'configdrive.iso');
  const encoded = buildConfigdrive(
    { uuid: '1be26c0b-03f2-4d2e-ae87-c02d7f33c123', name: 'node-7' },
    { meta_data: { hostname: 'node-7' }, user_data: '#cloud-config\n', network_data: { links: [] }, vendor_data: { x: 1 } },
  );
  writeFileSync(iso, gunzipSync(Buffer.from(encoded, 'base64')));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const isoinfo = async (...args: string[]) => (await run('isoinfo', ['-i', iso, ...args], { encoding: 'latin1' })).stdout;

it('is an ISO 9660 volume labelled config-2 with Joliet and Rock Ridge, as isoinfo reads it', async () => {
  const description = await isoinfo('-d');
  expect(description).toContain('Volume id: config-2');
  expect(description).toContain('Joliet with UCS level 3 found');
  expect(description).toContain('Rock Ridge signatures version 1 found');
  const rockRidge = await isoinfo('-R', '-f');
  expect(
    rockRidge
      .split('\n')
      .filter((l) => l.includes('.') || l.endsWith('user_data'))
      .sort(),
  ).toEqual([
    '/openstack/2012-08-10/meta_data.json',
    '/openstack/2012-08-10/network_data.json',
    '/openstack/2012-08-10/user_data',
    '/openstack/2012-08-10/vendor_data2.json',
    '/openstack/latest/meta_data.json',
    '/openstack/latest/network_data.json',
    '/openstack/latest/user_data',
    '/openstack/latest/vendor_data2.json',
  ]);
  const listing = await isoinfo('-R', '-l');
  expect(listing).toMatch(/-r--r--r-- +1 +0 +0 +\d+ .*meta_data\.json/);
  expect(listing).toMatch(/dr-xr-xr-x +2 +0 +0 +2048 .*latest/);
});

it('gives the same contents through Rock Ridge, Joliet and ISO 9660 names', async () => {
  const meta = '{"hostname": "node-7", "uuid": "1be26c0b-03f2-4d2e-ae87-c02d7f33c123", "name": "node-7"}';
  expect(await isoinfo('-R', '-x', '/openstack/latest/meta_data.json')).toBe(meta);
  expect(await isoinfo('-J', '-x', '/openstack/latest/meta_data.json')).toBe(meta);
  expect(await isoinfo('-x', '/openstack/latest/meta_data.json;1')).toBe(meta);
  expect(await isoinfo('-R', '-x', '/openstack/2012-08-10/user_data')).toBe('#cloud-config\n');
  expect(await isoinfo('-J', '-x', '/openstack/latest/vendor_data2.json')).toBe('{"x": 1}');
});
