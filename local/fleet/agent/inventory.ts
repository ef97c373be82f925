/**
 * What the virtual agent reports for in-band inspection, in IPA's format: the hardware inventory
 * (`hardware.list_hardware_info`: interfaces, cpu, disks, memory, BMC addresses, system vendor,
 * boot, hostname) of the machine's model, and the data IPA's collectors post with it (`default`:
 * the inventory, the root disk IPA would pick, the boot interface, the configuration; `logs`:
 * the agent's log as IPA sends it, a base64 gzipped tar).
 */
import { createHash } from 'node:crypto';
import type { VirtualMachine } from '../machine';
import { agentLogsArchive } from './logs-archive';

/** IPA's `ipa-inspection-collectors` default. */
export const DEFAULT_COLLECTORS = 'default,logs';

const GIB = 1024 ** 3;
/** IPA's `guess_root_disk` skips disks smaller than this (4 GiB). */
const MIN_ROOT_DISK_BYTES = 4 * GIB;

/** Redfish ProcessorArchitecture → the kernel's name for it (what IPA reports). */
const ARCH: Readonly<Record<string, string>> = { x86: 'x86_64', ARM: 'aarch64', 'IA-64': 'ia64', MIPS: 'mips', Power: 'ppc64le' };

const X86_FLAGS = [
  'fpu',
  'vme',
  'de',
  'pse',
  'tsc',
  'msr',
  'pae',
  'mce',
  'cx8',
  'apic',
  'sep',
  'mtrr',
  'pge',
  'sse',
  'sse2',
  'ht',
  'vmx',
  'lm',
  'aes',
  'avx',
  'avx2',
];

function hex(text: string, length: number): string {
  return createHash('sha256').update(text).digest('hex').slice(0, length);
}

/** A private address for a NIC, fixed by its MAC (the virtual DHCP's lease). */
function addressOf(mac: string): string {
  const bytes = mac.split(':').map((b) => parseInt(b, 16));
  return `10.${bytes[3] ?? 0}.${bytes[4] ?? 0}.${Math.max(2, bytes[5] ?? 2)}`;
}

export type Inventory = Record<string, unknown> & { disks: Record<string, unknown>[] };

/** IPA's `list_hardware_info` for the machine. */
export function hardwareInventory(machine: VirtualMachine): Inventory {
  const spec = machine.spec;
  const threads = spec.processors.reduce((n, p) => n + p.threads, 0);
  const first = spec.processors[0];
  const arch = ARCH[first?.arch ?? 'x86'] ?? 'x86_64';
  return {
    interfaces: spec.nics.map((nic, i) => ({
      name: `eth${i}`,
      mac_address: nic.mac,
      // A NIC that is down has no lease and no carrier, as IPA sees it.
      ipv4_address: nic.enabled ? addressOf(nic.mac) : null,
      ipv6_address: null,
      has_carrier: nic.enabled,
      lldp: null,
      vendor: '0x1af4',
      product: '0x0001',
      client_id: null,
      biosdevname: null,
      speed_mbps: nic.speedMbps,
      pci_address: `0000:00:${(3 + i).toString(16).padStart(2, '0')}.0`,
      driver: 'virtio_net',
    })),
    cpu: {
      model_name: first?.model ?? 'Ironless Virtual CPU',
      frequency: '2400.000',
      count: threads,
      architecture: arch,
      flags: arch === 'x86_64' ? X86_FLAGS : [],
      socket_count: spec.processors.length,
    },
    disks: spec.disks.map((disk, i) => ({
      name: `/dev/${disk.name}`,
      model: 'Ironless Virtual Disk',
      size: disk.sizeBytes,
      rotational: false,
      wwn: `0x5000c500${hex(`${machine.uuid}:${disk.name}:wwn`, 8)}`,
      serial: `IRL${hex(`${machine.uuid}:${disk.name}:serial`, 12).toUpperCase()}`,
      vendor: 'IRONLESS',
      wwn_with_extension: null,
      wwn_vendor_extension: null,
      hctl: `0:0:${i}:0`,
      by_path: `/dev/disk/by-path/pci-0000:00:05.0-scsi-0:0:${i}:0`,
      logical_sectors: 512,
      physical_sectors: 512,
      tran: 'sata',
    })),
    memory: { total: spec.memoryGiB * GIB - 256 * 1024 * 1024, physical_mb: spec.memoryGiB * 1024 },
    // IPA finds no IPMI BMC on a Redfish-only machine (ipmitool fails): its placeholder addresses.
    bmc_address: '0.0.0.0',
    bmc_v6address: '::/0',
    system_vendor: {
      product_name: 'Ironless Virtual Machine',
      serial_number: machine.uuid,
      manufacturer: 'Ironless',
      firmware: { vendor: 'Ironless', version: '1.0', build_date: '2026-01-01' },
    },
    // Booted from virtual media: no BOOTIF, so no PXE interface is known.
    boot: { current_boot_mode: machine.boot.mode === 'UEFI' ? 'uefi' : 'bios', pxe_interface: null },
    hostname: `${machine.id}.localdomain`,
  };
}

/** IPA's `guess_root_disk`: the smallest disk of at least 4 GiB; undefined when there is none. */
export function guessRootDisk(inventory: Inventory): Record<string, unknown> | undefined {
  return [...inventory.disks].sort((a, b) => Number(a.size) - Number(b.size)).find((disk) => Number(disk.size) >= MIN_ROOT_DISK_BYTES);
}

export interface CollectOptions {
  /** `ipa-inspection-collectors`: comma-separated. */
  readonly collectors: string;
  /** The agent's log lines, for the `logs` collector. */
  readonly logLines: () => readonly string[];
  /** The hardware managers' versions, reported in `configuration`. */
  readonly managers: Readonly<Record<string, string>>;
  /** A collector failure to report (the `inspect` agent fault), as IPA reports one in `error`. */
  readonly failure?: string;
}

/** What IPA's `inspect()` posts: the collectors' data and `error` (null when none failed). */
export function inspectionData(machine: VirtualMachine, options: CollectOptions): Record<string, unknown> {
  const names = options.collectors
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '');
  const data: Record<string, unknown> = {};
  const failures: string[] = [];
  for (const name of names) {
    if (name === 'default') {
      const inventory = hardwareInventory(machine);
      data.inventory = inventory;
      const root = guessRootDisk(inventory);
      if (root !== undefined) data.root_disk = root;
      data.boot_interface = null;
      data.configuration = {
        collectors: names,
        managers: Object.entries(options.managers).map(([manager, version]) => ({ name: manager, version })),
      };
    } else if (name === 'logs') {
      data.logs = agentLogsArchive(options.logLines());
    } else {
      failures.push(`Failed to load collector ${name}`);
    }
  }
  if (options.failure !== undefined) failures.push(options.failure);
  // IPA's AccumulatedFailures.get_error: one failure as it is, several numbered.
  data.error =
    failures.length === 0
      ? null
      : failures.length === 1
        ? failures[0]
        : `The following errors were encountered:\n${failures.map((f) => `* ${f}`).join('\n')}`;
  return data;
}
