/** The local stack's boot ISO bucket, as the tests of the ISOs the conductor builds read it. */
import { GetObjectCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { LocalStack } from '../../../local/stack';

export class BootIsoBucket {
  private readonly s3: S3Client;
  private readonly bucket: string;

  constructor(stack: LocalStack) {
    this.s3 = new S3Client({
      endpoint: stack.endpoints.s3,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    this.bucket = stack.bootIsoBucket;
  }

  /** The object's bytes while it is in the bucket, else undefined. */
  async bytes(key: string): Promise<Buffer | undefined> {
    try {
      const got = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return Buffer.from((await got.Body?.transformToByteArray()) ?? []);
    } catch (err) {
      if ((err as { name?: string }).name === 'NoSuchKey') return undefined;
      throw err;
    }
  }

  async exists(key: string): Promise<boolean> {
    try {
      await this.s3.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return true;
    } catch (err) {
      if ((err as { name?: string }).name === 'NotFound') return false;
      throw err;
    }
  }

  /**
   * Run `action` while reading `key` every 200 ms: the distinct versions of it seen, oldest first
   * (an ISO lives only while its ramdisk boots, so it is caught while the action runs).
   */
  async watch(key: string, action: () => Promise<void>): Promise<Buffer[]> {
    const seen: Buffer[] = [];
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        const bytes = await this.bytes(key);
        if (bytes !== undefined && !seen.some((b) => b.equals(bytes))) seen.push(bytes);
        await new Promise((r) => setTimeout(r, 200));
      }
    })();
    try {
      await action();
    } finally {
      watching = false;
      await watcher;
    }
    return seen;
  }

  destroy(): void {
    this.s3.destroy();
  }
}
