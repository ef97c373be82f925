/**
 * What the tests that deploy through the virtual agent start from: a local stack whose fleet of
 * virtual machines (redfish nodes) boot the virtual IPA agent, and an image server holding one
 * whole-disk image.
 */
import { createHash } from 'node:crypto';
import type { IronlessSettings } from '../../../lib/settings';
import type { LocalFleetOptions } from '../../../local/fleet/local';
import type { LocalStack } from '../../../local/stack';
import { ImageServer } from '../../unit/fleet/helpers/fake-ironic';
import { startStack } from './stack';

/** Agent timings for tests: a silent agent fails within 20 s; the BMC is asked again after 1 s. */
const AGENT_SETTINGS: Partial<IronlessSettings> = {
  heartbeatTimeoutSeconds: 20,
  callbackTimeoutSeconds: 300,
  postDeployPowerStateRetryIntervalSeconds: 1,
};

/**
 * The agents' own pace, shortened so that the deploys wait on the conductor, not on the agent:
 * a heartbeat every 2 s (not 6–12 s, heartbeat_timeout × U(0.3, 0.6)), one 0.5 s after a command
 * finished (IPA waits 5 s since the last), lookups retried within 2 s (not 10 s).
 */
export const FAST_AGENT: NonNullable<LocalFleetOptions['agentTimings']> = {
  heartbeatIntervalMs: 2000,
  forcedHeartbeatGapMs: 500,
  lookupMaxIntervalMs: 2000,
};

/** The conductor asks the virtual BMCs (which change power in 200 ms) for the power state every 200 ms, not every 1 s. */
export const FAST_BMC_POLLS = { REDFISH_POWER_POLL_INTERVAL_MS: '200' } as const;

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
  /** The agents' timings (default FAST_AGENT). */
  readonly agentTimings?: LocalFleetOptions['agentTimings'];
}): Promise<FleetStack> {
  const stack = await startStack({
    fleet: { count: options.count, prefix: options.prefix, agentTimings: options.agentTimings ?? FAST_AGENT },
    settings: { ...AGENT_SETTINGS, ...options.settings },
    functionEnv: FAST_BMC_POLLS,
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
