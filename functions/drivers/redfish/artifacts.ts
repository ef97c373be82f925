/**
 * The conductor's artifact store: what Ironic's conductor web server (or Swift) is for the images
 * it hands BMCs. Files the conductor fetched or built are streamed to the boot ISO bucket and the
 * BMC gets a presigned GET URL; downloads stream to the function's /tmp, following redirects only
 * to hosts the image policy allows, and stop at a size bound so /tmp cannot fill.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { S3Client } from '@aws-sdk/client-s3';
import { once } from '#common/lazy';
import { PRESIGN_SECONDS } from '../agent/image-source';
import { type HostRules, checkUrlHost } from '../hosts';

const MAX_REDIRECTS = 5;
const DOWNLOAD_TIMEOUT_MS = 10 * 60_000;

/** The server answered the GET with another status than 2xx (after redirects). */
export class DownloadStatusError extends Error {
  constructor(readonly status: number) {
    super(`HTTP ${status}`);
  }
}

/** A downloaded file: its size and a way to read it again. */
export interface DownloadedFile {
  readonly size: number;
  open(): Readable;
}

/**
 * Stream a URL to a file. The policy's refusal (of the URL or a redirect) is its
 * InvalidParameterValue; a non-2xx answer a DownloadStatusError; more than `maxBytes`, a
 * connection or a write failure an Error saying so.
 */
export async function downloadToFile(
  url: string,
  path: string,
  field: string,
  nodeUuid: string,
  hosts: HostRules,
  maxBytes = Number.POSITIVE_INFINITY,
): Promise<DownloadedFile> {
  let current = url;
  for (let hop = 0; ; hop++) {
    checkUrlHost(hosts, current, field, nodeUuid);
    const response = await fetch(current, { redirect: 'manual', signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) });
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location !== null && hop < MAX_REDIRECTS) {
      await response.body?.cancel();
      current = new URL(location, current).toString();
      continue;
    }
    if (!response.ok || response.body === null) {
      await response.body?.cancel();
      throw new DownloadStatusError(response.status);
    }
    const tooLarge = () => new Error(`the image is larger than ${maxBytes} bytes, the most the conductor keeps`);
    if (Number(response.headers.get('content-length') ?? 0) > maxBytes) {
      await response.body.cancel();
      throw tooLarge();
    }
    // The length header may be missing or wrong: the bytes are counted as they pass.
    let seen = 0;
    const bounded = async function* (source: AsyncIterable<Buffer>) {
      for await (const chunk of source) {
        seen += chunk.length;
        if (seen > maxBytes) throw tooLarge();
        yield chunk;
      }
    };
    await pipeline(Readable.fromWeb(response.body as WebReadableStream), bounded, createWriteStream(path));
    break;
  }
  const size = (await stat(path)).size;
  return { size, open: () => createReadStream(path) };
}

// The S3 client is loaded for the first artifact (a conductor's cold start loads none).
const s3Sdk = once(() => import('@aws-sdk/client-s3'));
const defaultS3 = once(async () => new (await s3Sdk()).S3Client({}));

/** Put a stream of known size in the bucket; S3's error as it is, for the caller to word. */
export async function putArtifact(bucket: string, key: string, body: Readable, size: number, contentType: string, s3?: S3Client) {
  const { PutObjectCommand } = await s3Sdk();
  const client = s3 ?? (await defaultS3());
  await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentLength: size, ContentType: contentType }));
}

/** The presigned GET URL a BMC fetches an artifact with (6 hours, as the agent's image URLs). */
export async function presignArtifact(bucket: string, key: string, s3?: S3Client): Promise<string> {
  const { GetObjectCommand } = await s3Sdk();
  const client = s3 ?? (await defaultS3());
  const { getSignedUrl } = await import('@aws-sdk/s3-request-presigner');
  return getSignedUrl(client, new GetObjectCommand({ Bucket: bucket, Key: key }), { expiresIn: PRESIGN_SECONDS });
}

/** Delete artifacts (a missing one is no error in S3); the first failure is returned, as Ironic only logs it. */
export async function deleteArtifacts(bucket: string, keys: readonly string[], s3?: S3Client): Promise<Error | undefined> {
  const { DeleteObjectCommand } = await s3Sdk();
  const client = s3 ?? (await defaultS3());
  try {
    for (const key of keys) await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    return undefined;
  } catch (err) {
    return err as Error;
  }
}
