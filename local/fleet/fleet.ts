/**
 * A fleet of virtual machines behind one virtual Redfish BMC service. `new Fleet({ count: 3 })`
 * then `start()` serves `vm-0` … `vm-2`; `driverInfo(machine)` is what a redfish node needs to
 * reach one. Machines are deterministic from the prefix (MACs, credentials), so a fleet started
 * again with the same prefix and port matches the nodes enrolled the first time.
 */
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { type AgentFaults, type BootEvent, type GuestFactory, type MachineSpec, VirtualMachine } from './machine';
import { AGENT_ESP_PATH, AGENT_KERNEL_PATH, AGENT_RAMDISK_PATH } from './agent-images';
import { AGENT_ISO_PATH, FleetServer, type FleetServerOptions } from './server';

export { AGENT_ISO_PATH };

export interface FleetOptions extends FleetServerOptions {
  /** Machines to create at once (more can be added with `add`). Default 0. */
  readonly count?: number;
  /** Machine ids are `<prefix>-<n>`; default "vm". */
  readonly prefix?: string;
  /** How long power transitions take on every machine; default 0 (at once). */
  readonly powerDelayMs?: number;
  /** Runs something on each machine that boots (see `GuestFactory`). */
  readonly guestFactory?: GuestFactory;
}

interface FleetEvents {
  powerOn: [BootEvent];
  powerOff: [{ machine: VirtualMachine; graceful: boolean }];
}

const GIB = 1024 ** 3;

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** A machine of the default shape: one 8-thread x86 CPU, 16 GiB, a 100 GiB disk, two 10G NICs. */
export function defaultSpec(prefix: string, index: number, overrides: Partial<MachineSpec> = {}): MachineSpec {
  const id = `${prefix}-${index}`;
  // 52:54:00 is QEMU's prefix; the rest comes from the prefix and the index, unique within a fleet.
  const base = digest(`ironless-fleet-mac:${prefix}`).readUIntBE(0, 3);
  const mac = (n: number) => {
    const value = (base + index * 4 + n) % 0x1000000;
    return ['52', '54', '00', ...[16, 8, 0].map((shift) => ((value >> shift) & 0xff).toString(16).padStart(2, '0'))].join(':');
  };
  return {
    id,
    uuid: uuidFrom(digest(`ironless-fleet-uuid:${id}`)),
    username: 'admin',
    password: digest(`ironless-fleet-password:${id}`).toString('hex').slice(0, 16),
    processors: [{ model: 'Ironless Virtual CPU', arch: 'x86', cores: 4, threads: 8 }],
    memoryGiB: 16,
    disks: [{ name: 'sda', sizeBytes: 100 * GIB }],
    nics: [
      { id: 'NIC1', mac: mac(0), enabled: true, speedMbps: 10_000 },
      { id: 'NIC2', mac: mac(1), enabled: true, speedMbps: 10_000 },
    ],
    ...overrides,
  };
}

function uuidFrom(bytes: Buffer): string {
  const hex = Buffer.from(bytes.subarray(0, 16));
  hex[6] = ((hex[6] as number) & 0x0f) | 0x50; // version 5-like: name based
  hex[8] = ((hex[8] as number) & 0x3f) | 0x80;
  const h = hex.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

export class Fleet extends EventEmitter<FleetEvents> {
  readonly machines = new Map<string, VirtualMachine>();
  readonly prefix: string;
  /** Base URL of the BMC service once started (`http://127.0.0.1:<port>`). */
  url = '';
  private readonly server = new FleetServer(this.machines);
  private guestFactory: GuestFactory | undefined;

  constructor(private readonly options: FleetOptions = {}) {
    super();
    this.prefix = options.prefix ?? 'vm';
    this.guestFactory = options.guestFactory;
    for (let i = 0; i < (options.count ?? 0); i++) this.add();
  }

  /** Add a machine: the next default one, with any fields overridden. */
  add(overrides: Partial<MachineSpec> = {}): VirtualMachine {
    let index = this.machines.size;
    while (this.machines.has(`${this.prefix}-${index}`)) index++;
    const spec = defaultSpec(this.prefix, index, { powerDelayMs: this.options.powerDelayMs ?? 0, ...overrides });
    if (this.machines.has(spec.id)) throw new Error(`A machine ${spec.id} already exists in this fleet`);
    const machine = new VirtualMachine(spec);
    machine.guestFactory = this.guestFactory;
    machine.on('powerOn', (event) => this.emit('powerOn', event));
    machine.on('powerOff', (event) => this.emit('powerOff', event));
    this.machines.set(spec.id, machine);
    return machine;
  }

  /** What runs on machines that boot from now on, on every machine (e.g. the virtual ramdisk agent). */
  setGuestFactory(factory: GuestFactory | undefined): void {
    this.guestFactory = factory;
    for (const machine of this.machines.values()) machine.guestFactory = factory;
  }

  /** Inject faults into the ramdisk agent of a machine (see `AgentFaults`); `{}` clears them. */
  setAgentFaults(id: string, faults: AgentFaults): void {
    this.machine(id).setAgentFaults(faults);
  }

  machine(id: string): VirtualMachine {
    const machine = this.machines.get(id);
    if (!machine) throw new Error(`No machine ${id} in this fleet`);
    return machine;
  }

  async start(): Promise<this> {
    this.url = await this.server.start(this.options);
    return this;
  }

  /** Stop serving (connections are dropped) and power every machine's guest down. */
  async stop(): Promise<void> {
    await this.server.stop();
    await Promise.all([...this.machines.values()].map((m) => m.dispose()));
  }

  /** The driver_info of a redfish node for this machine. */
  driverInfo(machine: VirtualMachine): Record<string, unknown> {
    if (!this.url) throw new Error('The fleet is not started');
    return {
      redfish_address: this.url,
      redfish_system_id: `/redfish/v1/Systems/${machine.id}`,
      redfish_username: machine.spec.username,
      redfish_password: machine.spec.password,
      // A self-signed certificate cannot be verified; the fleet's HTTPS is for trying TLS options.
      ...(this.url.startsWith('https:') ? { redfish_verify_ca: false } : {}),
      deploy_iso: `${this.url}${AGENT_ISO_PATH}`,
    };
  }

  /**
   * The driver_info of a redfish node that boots the agent from an ISO the conductor builds: the
   * agent's kernel and ramdisk (for deploy and rescue) and the EFI system partition image, no ISO.
   */
  kernelDriverInfo(machine: VirtualMachine): Record<string, unknown> {
    const { deploy_iso: _iso, ...info } = this.driverInfo(machine);
    return {
      ...info,
      deploy_kernel: `${this.url}${AGENT_KERNEL_PATH}`,
      deploy_ramdisk: `${this.url}${AGENT_RAMDISK_PATH}`,
      rescue_kernel: `${this.url}${AGENT_KERNEL_PATH}`,
      rescue_ramdisk: `${this.url}${AGENT_RAMDISK_PATH}`,
      bootloader: `${this.url}${AGENT_ESP_PATH}`,
    };
  }
}
