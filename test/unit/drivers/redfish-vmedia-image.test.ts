/**
 * The URL the BMC gets for an attached image (`vmedia-image.ts`): as it is for `http` and `swift`,
 * a presigned URL of a copy in the bucket for `local` (downloaded from a loopback server into a
 * recording S3 stub), Ironic's errors when the download fails, and the copies' removal.
 */
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Logger } from '@aws-lambda-powertools/logger';
import { PERMISSIVE_FETCH_POLICY } from '../../../functions/drivers/hosts';
import { DEFAULT_REDFISH_CONFIG, type RedfishConfig } from '../../../functions/drivers/redfish/config';
import { cleanupVmediaImages, prepareVmediaImage, vmediaImageKey } from '../../../functions/drivers/redfish/vmedia-image';
import { makeNode } from '../helpers/builders';
import { stubS3 } from '../helpers/stub-s3';

const CONFIG: RedfishConfig = {
  ...DEFAULT_REDFISH_CONFIG,
  policy: PERMISSIVE_FETCH_POLICY,
  bootIso: { bucket: 'boot-isos', kernelAppendParams: '' },
};
const IMAGE = Buffer.alloc(10_000, 0x5a);

let server: Server;
let base = '';
beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/moved') {
      res.writeHead(302, { Location: '/tools.iso' });
      res.end();
      return;
    }
    if (req.url === '/chunked') {
      // No Content-Length: the bound is met while the bytes pass.
      res.writeHead(200);
      res.write(IMAGE);
      res.end();
      return;
    }
    res.writeHead(req.url === '/tools.iso' ? 200 : 404);
    res.end(req.url === '/tools.iso' ? IMAGE : undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const task = () => ({ node: makeNode(), log: new Logger({ serviceName: 'test', logLevel: 'SILENT' }) });

describe('prepareVmediaImage', () => {
  it('hands http and swift URLs (and NFS ones) over as they are, copying nothing', async () => {
    const { client, sent } = stubS3();
    for (const [url, source] of [
      [`${base}/tools.iso`, 'http'],
      [`${base}/tools.iso`, 'swift'],
      ['nfs://files.example/share/x.iso', 'http'],
    ] as const)
      expect(await prepareVmediaImage(task(), 'cdrom', url, source, CONFIG, { s3: client })).toBe(url);
    expect(sent).toEqual([]);
  });

  it('copies a local image (through redirects) under <node>/<device>-<node>.<ext> and presigns it', async () => {
    const t = task();
    const { client, sent } = stubS3();
    const url = await prepareVmediaImage(t, 'cdrom', `${base}/moved`, 'local', CONFIG, { s3: client });
    const key = `${t.node.uuid}/cdrom-${t.node.uuid}.iso`;
    expect(url).toMatch(new RegExp(`^https://boot-isos\\.s3\\.eu-west-1\\.amazonaws\\.com/${key}\\?X-Amz-Algorithm=`));
    expect(sent).toHaveLength(1);
    expect(sent[0]?.input).toMatchObject({ Bucket: 'boot-isos', Key: key, ContentLength: IMAGE.length });
    expect(sent[0]?.body?.equals(IMAGE)).toBe(true);
    expect(vmediaImageKey(t.node, 'floppy')).toBe(`${t.node.uuid}/floppy-${t.node.uuid}.img`);
  });

  it("fails with Ironic's errors: a refused scheme, a bad answer, a failed connection, a size over the bound, no bucket", async () => {
    const { client, sent } = stubS3();
    const prepare = (url: string, options: { maxBytes?: number; config?: RedfishConfig } = {}) =>
      prepareVmediaImage(task(), 'cdrom', url, 'local', options.config ?? CONFIG, { s3: client, maxBytes: options.maxBytes });
    await expect(prepare('cifs://files.example/share/x.iso')).rejects.toThrow(
      "image_download_source is set to 'local' but the image URL cifs://files.example/share/x.iso uses the cifs protocol which cannot be downloaded by the conductor.",
    );
    await expect(prepare(`${base}/gone`)).rejects.toThrow(
      `Validation of image href ${base}/gone failed, reason: Got HTTP code 404 instead of 200 in response to GET request.`,
    );
    await expect(prepare('http://127.0.0.1:1/x.iso')).rejects.toThrow(
      /^Failed to download image http:\/\/127\.0\.0\.1:1\/x\.iso, reason: /,
    );
    await expect(prepare(`${base}/tools.iso`, { maxBytes: 1000 })).rejects.toThrow(
      `Failed to download image ${base}/tools.iso, reason: the image is larger than 1000 bytes, the most the conductor keeps`,
    );
    await expect(prepare(`${base}/chunked`, { maxBytes: 1000 })).rejects.toThrow(
      `Failed to download image ${base}/chunked, reason: the image is larger than 1000 bytes, the most the conductor keeps`,
    );
    await expect(prepare(`${base}/tools.iso`, { config: { ...CONFIG, bootIso: undefined } })).rejects.toThrow(
      'this deployment has no boot ISO bucket to copy',
    );
    expect(sent).toEqual([]);
    await expect(
      prepareVmediaImage(task(), 'cdrom', `${base}/tools.iso`, 'local', CONFIG, { s3: stubS3(new Error('AccessDenied')).client }),
    ).rejects.toThrow(/reason: putting the copy in s3:\/\/boot-isos\/.* failed: AccessDenied$/);
  });
});

describe('cleanupVmediaImages', () => {
  it('deletes the named device types’ copies, or all three, and only logs a failure', async () => {
    const t = task();
    const { client, sent } = stubS3();
    await cleanupVmediaImages(t, ['disk'], CONFIG, client);
    await cleanupVmediaImages(t, undefined, CONFIG, client);
    const u = t.node.uuid;
    expect(sent.map((s) => s.input.Key)).toEqual([
      `${u}/disk-${u}.img`,
      `${u}/cdrom-${u}.iso`,
      `${u}/floppy-${u}.img`,
      `${u}/disk-${u}.img`,
    ]);
    await expect(cleanupVmediaImages(t, undefined, CONFIG, stubS3(new Error('down')).client)).resolves.toBeUndefined();
  });
});
