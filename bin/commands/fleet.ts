/**
 * `ironless fleet create`: start virtual machines with Redfish BMCs on this machine and enroll them
 * in an API as redfish nodes; serve the BMCs in the foreground until Ctrl-C. `ironless fleet
 * import` (fleet-import.ts) enrolls a real fleet's nodes from a file.
 */
import Table from 'cli-table3';
import type { Command } from 'commander';
import { agentGuestFactory } from '../../local/fleet/agent/factory';
import { type EnrolledNode, enrollFleet } from '../../local/fleet/enroll';
import { Fleet } from '../../local/fleet/fleet';
import { registerFleetImport } from './fleet-import';
import { port, positiveInteger } from './options';

interface CreateOptions {
  count: number;
  api: string;
  prefix: string;
  bmcHost: string;
  bmcPort: number;
  powerDelay: number;
  agent: boolean;
  inspection: boolean;
  pxe: boolean;
}

function nonNegativeInteger(value: string): number {
  return value === '0' ? 0 : positiveInteger(value);
}

/** One row per node: what an operator needs to find the node and its BMC. */
export function nodeTable(nodes: readonly EnrolledNode[], bmcUrl: string): string {
  const table = new Table({
    head: ['Name', 'UUID', 'Provision State', 'Redfish System', 'MACs', 'Enrolled'],
    // Colours only on a terminal: piped into a file or a test they are noise.
    ...(process.stdout.isTTY ? {} : { style: { head: [], border: [] } }),
  });
  for (const node of nodes) {
    table.push([
      node.name,
      node.uuid,
      node.provisionState,
      `${bmcUrl}/redfish/v1/Systems/${node.machine.id}`,
      node.machine.spec.nics.map((n) => n.mac).join('\n'),
      node.action,
    ]);
  }
  return table.toString();
}

export function registerFleet(program: Command): void {
  const fleet = program.command('fleet').description('virtual machines with Redfish BMCs for trying Ironless, and importing a real fleet');
  registerFleetImport(fleet);
  fleet
    .command('create')
    .description('start N virtual machines, enroll them as redfish nodes, and serve their BMCs until Ctrl-C')
    .requiredOption('--count <n>', 'how many machines', positiveInteger)
    .option('--api <url>', 'the Ironless (or Ironic) API to enroll them in', process.env.OS_ENDPOINT ?? 'http://127.0.0.1:6385')
    .option('--prefix <name>', 'machines and nodes are named <prefix>-0, <prefix>-1, …', 'vm')
    .option('--bmc-host <host>', 'address the BMCs listen on (and nodes are given)', '127.0.0.1')
    .option('--bmc-port <port>', 'port of the BMC service (0 = any free one)', port, 0)
    .option('--power-delay <ms>', 'how long a power transition takes on the machines', nonNegativeInteger, 0)
    .option('--no-agent', 'do not run the virtual ramdisk agent on machines that boot the agent ISO')
    .option('--no-inspection', 'the agent ISO is not built for in-band inspection: agents do not post their inventory at boot')
    .option('--no-pxe', 'no PXE environment: machines booting from the network boot nothing (no unmanaged inspection)')
    .action(async (opts: CreateOptions) => {
      // Machines that boot the agent ISO run the virtual ramdisk agent against the same API; it
      // sends its node's UUID with lookups since the nodes have no ports (see enroll.ts).
      const uuids = new Map<string, string>();
      const machines = new Fleet({
        ...(opts.agent
          ? {
              guestFactory: agentGuestFactory({
                apiUrl: opts.api,
                nodeUuidOf: (m) => uuids.get(m.id),
                // IPA's ipa-inspection-callback-url, as an ISO built for in-band inspection carries it.
                ...(opts.inspection ? { inspectionCallbackUrl: `${opts.api.replace(/\/+$/, '')}/v1/continue_inspection` } : {}),
                // The operator's PXE environment (Ironic's unmanaged inspection) serves the ramdisk built to inspect.
                ...(opts.pxe ? { pxe: { inspectionCallbackUrl: `${opts.api.replace(/\/+$/, '')}/v1/continue_inspection` } } : {}),
              }),
            }
          : {}),
        count: opts.count,
        prefix: opts.prefix,
        host: opts.bmcHost,
        port: opts.bmcPort,
        powerDelayMs: opts.powerDelay,
      });
      let stopping = false;
      const stop = async (signal: string, code = 0) => {
        if (stopping) return;
        stopping = true;
        if (signal) console.log(`\n${signal}: stopping the virtual BMCs…`);
        await machines.stop();
        process.exit(code);
      };
      process.on('SIGINT', () => void stop('SIGINT'));
      process.on('SIGTERM', () => void stop('SIGTERM'));
      try {
        await machines.start();
      } catch (err) {
        console.error(`Could not start the virtual BMCs: ${(err as Error).message}`);
        process.exit(1);
      }
      let nodes: EnrolledNode[];
      try {
        nodes = await enrollFleet(machines, opts.api);
      } catch (err) {
        console.error(`Could not enroll the machines in ${opts.api}: ${(err as Error).message}`);
        await stop('', 1);
        return;
      }
      for (const node of nodes) uuids.set(node.machine.id, node.uuid);
      console.log(nodeTable(nodes, machines.url));
      console.log('No ports were created for the NICs (not supported yet: Ironless has no ports API).');
      console.log(
        `${nodes.length} virtual machines serve Redfish at ${machines.url} (faults: ${machines.url}/fleet/v1/machines, agent faults: …/machines/<id>/agent-faults). Ctrl-C stops them.`,
      );
    });
}
