/**
 * The small fleet `npm start` brings up with the local stack: a few virtual machines on a fixed
 * BMC port, enrolled as redfish nodes once the API answers. Machines are deterministic from their
 * prefix, so with kept data (`.ironless/`) a restart finds its nodes already enrolled. A machine
 * that boots the agent ISO runs the virtual ramdisk agent against the local API; with `inspection`
 * the ISO is one built for in-band inspection, whose agents post their inventory at boot; with
 * `pxe` a machine booting from the network gets such an agent from an operator's PXE environment.
 */
import type { AgentOptions } from './agent/agent';
import { agentGuestFactory } from './agent/factory';
import { enrollFleet } from './enroll';
import { Fleet } from './fleet';

export interface LocalFleetOptions {
  readonly count: number;
  /** BMC port; when taken, any free port is used instead (and nodes enrolled before are updated). */
  readonly port?: number;
  readonly prefix?: string;
  /**
   * Whether the machines' agent ISO is built to inspect: its agents post their inventory to
   * `<api>/v1/continue_inspection` at boot (IPA's `ipa-inspection-callback-url`) before looking up.
   */
  readonly inspection?: boolean;
  /**
   * Whether the machines' network has an operator's PXE environment, for unmanaged inspection
   * (Ironic's `[inspector]require_managed_boot = False`): a machine booting PXE runs the agent
   * ramdisk built to inspect, posting to `<api>/v1/continue_inspection`.
   */
  readonly pxe?: boolean;
  /** The agents' first wait before posting the inventory again after a 409 or 5xx (IPA: 5 s). */
  readonly inspectionRetryMs?: number;
  /**
   * The agents' timings, for tests that wait on them (default: IPA's — heartbeats every
   * heartbeat_timeout × U(0.3, 0.6), a forced heartbeat at least 5 s after the last, lookups
   * backing off from 1 s to 10 s — and a shutdown 50 ms after power_off answers).
   */
  readonly agentTimings?: Pick<
    AgentOptions,
    'heartbeatIntervalMs' | 'forcedHeartbeatGapMs' | 'lookupIntervalMs' | 'lookupMaxIntervalMs' | 'shutdownDelayMs'
  >;
  /** How long a machine's BMC takes to change its power state (default 200 ms). */
  readonly powerDelayMs?: number;
}

/** Start the fleet and enroll it; an enrollment failure is reported, not fatal to the stack. */
export async function startLocalFleet(options: LocalFleetOptions, apiUrl: string, log: (line: string) => void): Promise<Fleet> {
  // NOTE: the enrolled nodes have no ports yet (see enroll.ts), so a lookup by MAC alone would find
  // nothing; the agent sends its node's UUID too, as IPA does when it knows it.
  const uuids = new Map<string, string>();
  const guestFactory = agentGuestFactory({
    apiUrl,
    nodeUuidOf: (m) => uuids.get(m.id),
    lookupMaxIntervalMs: 10_000,
    ...options.agentTimings,
    // The ISO's command line, as the fleet's agents are given their API URL (`ipa-api-url`).
    ...(options.inspection ? { inspectionCallbackUrl: `${apiUrl.replace(/\/+$/, '')}/v1/continue_inspection` } : {}),
    ...(options.inspectionRetryMs !== undefined ? { inspectionRetryMs: options.inspectionRetryMs } : {}),
    ...(options.pxe ? { pxe: { inspectionCallbackUrl: `${apiUrl.replace(/\/+$/, '')}/v1/continue_inspection` } } : {}),
  });
  const settings = { count: options.count, prefix: options.prefix ?? 'redfish', powerDelayMs: options.powerDelayMs ?? 200, guestFactory };
  let fleet = new Fleet({ ...settings, port: options.port ?? 0 });
  try {
    await fleet.start();
  } catch (err) {
    if ((err as { code?: string }).code !== 'EADDRINUSE') throw err;
    log(`Port ${options.port} for the virtual BMCs is in use; using a free one.`);
    fleet = await new Fleet({ ...settings, port: 0 }).start();
  }
  try {
    const nodes = await enrollFleet(fleet, apiUrl);
    for (const node of nodes) uuids.set(node.machine.id, node.uuid);
    const created = nodes.filter((n) => n.action !== 'exists').length;
    log(
      `Virtual fleet: ${nodes.length} redfish nodes (${nodes.map((n) => n.name).join(', ')}; ${created} newly enrolled), BMCs at ${fleet.url}.`,
    );
  } catch (err) {
    log(`Virtual fleet: BMCs at ${fleet.url}, but enrolling failed: ${(err as Error).message}`);
  }
  return fleet;
}
