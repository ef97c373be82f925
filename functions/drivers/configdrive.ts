/**
 * Config drives as Ironic builds them (`build_configdrive`, `get_configdrive_image`): a
 * configdrive given as a JSON object (API 1.56; `vendor_data` 1.59) is stored as it came and turned
 * into an image only when handed to the agent — an ISO 9660 volume labelled `config-2` with
 * `openstack/<version>/meta_data.json`, `user_data`, `network_data.json` and `vendor_data2.json`
 * for the versions 2012-08-10 and latest, gzipped and base64-encoded. `meta_data` gets the node's
 * uuid and name when it has none. A string (a URL, or an image already encoded) goes as it is.
 */
import { gzipSync } from 'node:zlib';
import { buildIso, type IsoFile } from '#common/iso9660';
import { pyJsonDumps } from '#common/pyrepr';

export const CONFIGDRIVE_LABEL = 'config-2';
const VERSIONS = ['2012-08-10', 'latest'];

export interface ConfigdriveContents {
  readonly meta_data?: Record<string, unknown>;
  readonly network_data?: Record<string, unknown>;
  readonly user_data?: unknown;
  readonly vendor_data?: Record<string, unknown>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
/** Python's truthiness of a JSON value: empty strings, lists and objects are false. */
const truthy = (v: unknown) =>
  v !== null &&
  v !== undefined &&
  v !== false &&
  v !== 0 &&
  v !== '' &&
  !(Array.isArray(v) && v.length === 0) &&
  !(isObject(v) && Object.keys(v).length === 0);

/** The files of the config drive (openstacksdk's `populate_directory`). */
export function configdriveFiles(node: { uuid: string; name: string | null }, contents: ConfigdriveContents): IsoFile[] {
  const meta: Record<string, unknown> = { ...(contents.meta_data ?? {}) };
  if (!('uuid' in meta)) meta.uuid = node.uuid;
  if (node.name && !('name' in meta)) meta.name = node.name;
  const userData = contents.user_data;
  const user = Array.isArray(userData) || isObject(userData) ? pyJsonDumps(userData) : truthy(userData) ? String(userData) : undefined;
  const files: IsoFile[] = [];
  for (const version of VERSIONS) {
    files.push({ path: `openstack/${version}/meta_data.json`, data: pyJsonDumps(meta) });
    if (truthy(contents.network_data))
      files.push({ path: `openstack/${version}/network_data.json`, data: pyJsonDumps(contents.network_data) });
    if (truthy(contents.vendor_data))
      files.push({ path: `openstack/${version}/vendor_data2.json`, data: pyJsonDumps(contents.vendor_data) });
    if (user !== undefined && user !== '') files.push({ path: `openstack/${version}/user_data`, data: user });
  }
  return files;
}

/** The gzipped, base64-encoded config drive image built from a JSON object. */
export function buildConfigdrive(node: { uuid: string; name: string | null }, contents: ConfigdriveContents, date?: Date): string {
  const iso = buildIso(configdriveFiles(node, contents), {
    volumeId: CONFIGDRIVE_LABEL,
    publisher: 'ironless',
    application: 'IRONLESS CONFIG DRIVE',
    ...(date ? { date } : {}),
  });
  return gzipSync(iso).toString('base64');
}

/** What the agent gets for `instance_info.configdrive`: an object built into an image, a string as it is, nothing when unset. */
export function configdriveImage(node: { uuid: string; name: string | null; instance_info: Record<string, unknown> }): string | undefined {
  const configdrive = node.instance_info.configdrive;
  if (isObject(configdrive)) return buildConfigdrive(node, configdrive as ConfigdriveContents);
  return typeof configdrive === 'string' && configdrive !== '' ? configdrive : undefined;
}
