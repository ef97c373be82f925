/**
 * The config drive as IPA takes it (`get_configdrive`): an http(s) URL is downloaded first; the
 * content is base64 (gzipped) — raw bytes from a URL that are not base64 are taken as they are —
 * and at most 64 MiB once unpacked. IPA writes those bytes to a `config-2` partition; the virtual
 * disk keeps what the instance's cloud-init would find there: the volume label and the files.
 */
import { gunzipSync } from 'node:zlib';
import type { ConfigdriveOnDisk } from '../machine';
import { errors } from './errors';
import { IsoError, readIso } from './iso9660';

const MAX_MIB = 64;
const MIB = 1024 * 1024;
/** File contents kept on the virtual disk up to this size each (longer ones are cut). */
const KEEP_CHARS = 64 * 1024;

const BASE64 = /^[A-Za-z0-9+/=\s]*$/;

/** The unpacked config drive; a DeploymentError, as IPA raises, for what cannot be fetched or unpacked. */
export async function fetchConfigdrive(configdrive: string, nodeUuid: string, signal?: AbortSignal): Promise<Buffer> {
  const isUrl = /^https?:\/\//i.test(configdrive);
  let data: Buffer;
  if (isUrl) {
    let response: Response;
    try {
      response = await fetch(configdrive, { signal: signal ?? null });
    } catch (err) {
      throw errors.deployment(`Can't download the configdrive content for node ${nodeUuid} from '${configdrive}'. Reason: ${String(err)}`);
    }
    if (response.status >= 400) {
      const body = await response.text().catch(() => '');
      throw errors.deployment(
        `Can't download the configdrive content for node ${nodeUuid} from '${configdrive}'. Got status code ${response.status}, response body ${body}`,
      );
    }
    data = Buffer.from(await response.arrayBuffer());
  } else {
    data = Buffer.from(configdrive, 'latin1');
  }
  const text = data.toString('latin1');
  if (!BASE64.test(text) || text.replace(/\s/g, '').length % 4 !== 0) {
    if (isUrl) return data; // IPA: bytes that are not base64 are the image itself
    throw errors.deployment(
      `Config drive for node ${nodeUuid} is not base64 encoded or the content is malformed. Error: Incorrect padding or invalid characters.`,
    );
  }
  const decoded = Buffer.from(text, 'base64');
  let unpacked: Buffer;
  try {
    unpacked = gunzipSync(decoded, { maxOutputLength: MAX_MIB * MIB + 1 });
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw errors.deployment(
        `Config drive size exceeds maximum limit of ${MAX_MIB}MiB. Size of the given config drive is more than ${MAX_MIB} MiB for node ${nodeUuid}.`,
      );
    }
    throw errors.deployment(
      `Encountered error while decompressing and writing config drive for node ${nodeUuid}. Error: ${(err as Error).message}`,
    );
  }
  const mib = Math.ceil(unpacked.length / MIB);
  if (mib > MAX_MIB) {
    throw errors.deployment(
      `Config drive size exceeds maximum limit of ${MAX_MIB}MiB. Size of the given config drive is ${mib} MiB for node ${nodeUuid}.`,
    );
  }
  return unpacked;
}

/** What cloud-init would read from the partition the bytes were written to. */
export function inspectConfigdrive(bytes: Buffer): ConfigdriveOnDisk {
  try {
    const iso = readIso(bytes);
    const files: Record<string, string> = {};
    for (const [path, content] of iso.files) files[path] = content.toString('utf8').slice(0, KEEP_CHARS);
    return { sizeBytes: bytes.length, label: iso.volumeId, files };
  } catch (err) {
    if (!(err instanceof IsoError)) throw err;
    return { sizeBytes: bytes.length, label: null, files: {}, unreadable: err.message };
  }
}
