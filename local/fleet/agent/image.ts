/**
 * Image download and verification as IPA's standby extension does it: `image_info` names the image
 * (`id`, `urls`), and either `os_hash_algo` + `os_hash_value` (used when the algorithm is known)
 * or the legacy md5 `checksum`; a checksum that is an http(s) URL is fetched first (a bare checksum
 * or a `<checksum> <file name>` list). The hash is computed while the bytes stream in.
 */
import { createHash, getHashes, type Hash } from 'node:crypto';
import type { Params } from './commands';
import { AgentError, errors } from './errors';

export interface ImageInfo {
  readonly id: string;
  readonly urls: readonly string[];
  readonly checksum?: string;
  readonly os_hash_algo?: string;
  readonly os_hash_value?: string;
  readonly image_type?: string;
  readonly deploy_boot_mode?: string;
  readonly [key: string]: unknown;
}

export interface Downloaded {
  readonly url: string;
  readonly size: number;
  readonly sha256: string;
  /** The bytes, when at most `keepBytes` long. */
  readonly content?: Buffer;
}

export interface DownloadOptions {
  readonly signal?: AbortSignal;
  /** Flip a bit of the first chunk (the bad-checksum fault): the image no longer verifies. */
  readonly corrupt?: boolean;
  /** Keep the bytes up to this size (default 1 MiB); larger images are only hashed. */
  readonly keepBytes?: number;
  /** Refuse images larger than this (the disk). */
  readonly maxBytes?: number;
  readonly device?: string;
}

const nonEmptyString = (v: unknown) => typeof v === 'string' && v !== '';

/** IPA's `_validate_image_info`: what prepare_image/cache_image refuse with a 400. */
export function validateImageInfo(params: Params): void {
  const info = (params.image_info ?? {}) as Record<string, unknown>;
  for (const field of ['id', 'urls']) {
    if (!(field in info)) throw errors.invalidCommandParams(`Image is missing '${field}' field.`);
  }
  if (!Array.isArray(info.urls) || info.urls.length === 0)
    throw errors.invalidCommandParams("Image 'urls' must be a list with at least one element.");
  let available = false;
  if (info.checksum !== undefined && info.checksum !== null) {
    if (!nonEmptyString(info.checksum)) throw errors.invalidCommandParams("Image 'checksum' must be a non-empty string.");
    available = true;
  }
  if (info.os_hash_algo || info.os_hash_value) {
    if (!nonEmptyString(info.os_hash_algo)) throw errors.invalidCommandParams("Image 'os_hash_algo' must be a non-empty string.");
    if (!nonEmptyString(info.os_hash_value)) throw errors.invalidCommandParams("Image 'os_hash_value' must be a non-empty string.");
    available = true;
  }
  if (!available)
    throw errors.invalidCommandParams(
      "Image checksum is not available, either the 'checksum' field or the 'os_hash_algo' and 'os_hash_value' fields pair must be set for image verification.",
    );
}

function hashFor(info: ImageInfo): { hash: Hash; algo: string; expected: string } {
  const algo = info.os_hash_algo;
  if (algo && getHashes().includes(algo)) return { hash: createHash(algo), algo, expected: info.os_hash_value ?? '' };
  if (info.checksum) return { hash: createHash('md5'), algo: 'md5', expected: info.checksum };
  throw errors.rest(
    `Unable to verify image ${info.id} with available checksums. Please make sure the specified 'os_hash_algo' (currently ${algo ?? 'None'}) is supported by this ramdisk, or provide a md5 checksum via the 'checksum' field`,
  );
}

async function get(url: string, imageId: string, signal: AbortSignal | undefined): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(url, { signal: signal ?? null, redirect: 'follow' });
  } catch (err) {
    throw errors.imageDownload(imageId, `Unable to attach to ${url}: ${(err as Error).message}`);
  }
  if (response.status !== 200) {
    const body = await response.text().catch(() => '');
    throw errors.imageDownload(
      imageId,
      `Received status code ${response.status} from ${url}, expected 200. Response body: ${body.slice(0, 200)}`,
    );
  }
  return response;
}

/** IPA's `_fetch_checksum`: a checksum given as a URL is read from that file. */
async function expectedChecksum(value: string, info: ImageInfo, signal: AbortSignal | undefined): Promise<string> {
  if (!/^https?:\/\//.test(value)) return value;
  const text = await (await get(value, value, signal)).text();
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  if (lines.length === 0) throw errors.imageDownload(value, 'Empty checksum file');
  if (lines.length === 1 && !(lines[0] as string).includes(' ')) return lines[0] as string;
  const wanted = new URL(info.urls[0] as string).pathname.split('/').pop() ?? '';
  for (const line of lines) {
    const [sum, ...rest] = line.split(/\s+/);
    if (rest.join(' ').replace(/^\*/, '') === wanted) return sum as string;
  }
  throw errors.imageDownload(value, `Checksum file does not contain name ${wanted}`);
}

/** Download from the first URL that answers, hashing on the way; verify against image_info. */
export async function downloadImage(info: ImageInfo, options: DownloadOptions = {}): Promise<Downloaded> {
  const { hash, expected: given } = hashFor(info);
  const expected = await expectedChecksum(given, info, options.signal);
  const failures: string[] = [];
  let response: Response | undefined;
  let url = '';
  const started = Date.now();
  for (const candidate of info.urls) {
    try {
      response = await get(candidate, info.id, options.signal);
      url = candidate;
      break;
    } catch (err) {
      const detail = err instanceof AgentError ? err.details.replace(/^Download of image \S+ failed: /, '') : String(err);
      failures.push(`URL: ${candidate}; time: ${(Date.now() - started) / 1000} seconds. Error: ${detail}`);
    }
  }
  if (!response?.body) throw errors.imageDownload(info.id, failures.join('\n '));

  const sha256 = createHash('sha256');
  const keep = options.keepBytes ?? 1024 * 1024;
  const chunks: Buffer[] = [];
  let size = 0;
  let first = true;
  for await (const piece of response.body) {
    const chunk = Buffer.from(piece as Uint8Array);
    if (first && options.corrupt && chunk.length > 0) chunk[0] = (chunk[0] as number) ^ 0xff;
    first = false;
    size += chunk.length;
    if (options.maxBytes !== undefined && size > options.maxBytes)
      throw errors.imageWrite(options.device ?? 'disk', 'No space left on device');
    hash.update(chunk);
    sha256.update(chunk);
    if (size <= keep) chunks.push(chunk);
  }
  if (options.corrupt && size === 0) hash.update('corrupted');
  const actual = hash.digest('hex');
  // IPA compares verbatim; a checksum given in upper case would not match there either.
  if (actual !== expected) throw errors.imageChecksum(info.id, `/tmp/${info.id}`, expected, actual);
  return { url, size, sha256: sha256.digest('hex'), ...(size <= keep ? { content: Buffer.concat(chunks) } : {}) };
}
