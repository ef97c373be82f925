/**
 * What the tests that deploy through the virtual agent start from: a local stack whose fleet of
 * virtual machines (redfish nodes) boot the virtual IPA agent, and an image server holding one
 * whole-disk image.
 */
import { createHash } from 'node:crypto';
import type { IronlessSettings } from '../../../lib/settings';
import type { LocalStack } from '../../../local/stack';
import { ImageServer } from '../../unit/fleet/helpers/fake-ironic';
import { startStack } from './stack';

/** Agent timings for tests: a silent agent fails within 20 s; the BMC is asked again after 1 s. */
const AGENT_SETTINGS: Partial<IronlessSettings> = {
  heartbeatTimeoutSeconds: 20,
  callbackTimeoutSeconds: 300,
  postDeployPowerStateRetryIntervalSeconds: 1,
};

export interface FleetStack {
  readonly stack: LocalStack;
  readonly images: ImageServer;
  /** The image as `instance_info` names it: its URL on the image server, and its MD5. */
  readonly image: { readonly image_source: string; readonly image_checksum: string };
  stop(): Promise<void>;
}

export async function startFleetStack(options: {
  readonly count: number;
  readonly prefix: string;
  readonly image: Buffer;
  readonly settings?: Partial<IronlessSettings>;
}): Promise<FleetStack> {
  const stack = await startStack({
    fleet: { count: options.count, prefix: options.prefix },
    settings: { ...AGENT_SETTINGS, ...options.settings },
  });
  const images = await new ImageServer().start();
  images.images.set('/disk.img', options.image);
  return {
    stack,
    images,
    image: { image_source: `${images.url}/disk.img`, image_checksum: createHash('md5').update(options.image).digest('hex') },
    async stop() {
      await images.stop();
      await stack.stop();
    },
  };
}
