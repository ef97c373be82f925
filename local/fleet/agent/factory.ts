/**
 * Plugging the virtual agent into a fleet: a `GuestFactory` that boots an agent when a machine
 * boots the agent ISO from its virtual CD (any image whose URL ends in the fleet's agent ISO path,
 * or what `isAgentImage` accepts; any other http(s) image is fetched and boots the agent when it is
 * a UEFI-bootable ISO carrying the fleet's agent ramdisk, see `boot-media.ts`) and stops it when
 * the machine powers off. An agent booted from a built ISO takes the token its kernel command line
 * carries (`ipa-agent-token`), as IPA does, and the configuration IPA copies from the media: the
 * CA it verifies the API with (Ironic's `[agent]api_ca_file`, `vmedia-config.ts`). Each machine's agent
 * listens on the same port at every boot, as a real agent on its machine's address would, so
 * Ironic's stored callback URL stays right across reboots.
 *
 * With `pxe`, the fleet has an operator's PXE environment (for Ironic's unmanaged inspection): a
 * machine that boots from the network (a Pxe boot override) gets the agent ramdisk from it, with
 * the kernel command line that environment gives (`ipa-inspection-callback-url`), whatever its
 * virtual CD holds. Without it nothing answers the machine's PXE requests and it boots nothing.
 */
import type { BootEvent, GuestFactory, VirtualMachine } from '../machine';
import { AGENT_ISO_PATH } from '../server';
import { type AgentOptions, VirtualAgent } from './agent';
import { bootsAgent, fetchBootIso, readBootIso } from './boot-media';
import { type AgentTls, agentTls, copyConfigFromVmedia, kernelArg } from './vmedia-config';

export { kernelArg };

export interface AgentFactoryOptions extends Omit<AgentOptions, 'machine' | 'apiUrl' | 'port' | 'nodeUuid' | 'agentToken'> {
  /** Ironic's API URL the agents talk to. */
  readonly apiUrl: string;
  /** Whether a boot image is the agent ramdisk; default: its URL path ends with the agent ISO path. */
  readonly isAgentImage?: (image: string) => boolean;
  /** The node UUID a machine's agent sends with its lookups, when known (default: none, MACs only). */
  readonly nodeUuidOf?: (machine: VirtualMachine) => string | undefined;
  /** The operator's PXE environment: the inspection callback its ramdisk's command line names. */
  readonly pxe?: { readonly inspectionCallbackUrl: string };
}

/** A guest factory that also knows the agents it started, by machine id. */
export interface AgentGuestFactory extends GuestFactory {
  /** The agent running (or last run) on a machine. */
  agent(machineId: string): VirtualAgent | undefined;
  readonly agents: ReadonlyMap<string, VirtualAgent>;
}

export function defaultIsAgentImage(image: string): boolean {
  try {
    return new URL(image).pathname.endsWith(AGENT_ISO_PATH);
  } catch {
    return image.endsWith(AGENT_ISO_PATH);
  }
}

export function agentGuestFactory(options: AgentFactoryOptions): AgentGuestFactory {
  const agents = new Map<string, VirtualAgent>();
  const ports = new Map<string, number>();
  const isAgent = options.isAgentImage ?? defaultIsAgentImage;

  /**
   * Whether the CD's image is the agent: by its URL (the fleet's ready ISO, no command line), or by
   * what a built ISO carries — then with the kernel command line its grub.cfg (UEFI) or
   * isolinux.cfg (legacy BIOS) gives, as the machine's boot mode reads it.
   */
  const agentMedia = async (machine: VirtualMachine, image: string): Promise<{ cmdline?: string; tls?: AgentTls } | undefined> => {
    if (isAgent(image)) return {};
    if (!/^https?:\/\//.test(image)) return undefined;
    try {
      const iso = readBootIso(await fetchBootIso(image, machine.faults.mediaCorrupt === true), machine.boot.mode);
      if (bootsAgent(iso)) return { cmdline: iso.cmdline, tls: agentTls(copyConfigFromVmedia(iso, iso.cmdline), iso.cmdline) };
      options.log?.(`[machine ${machine.id}] booted an ISO whose ramdisk is not the agent's`);
    } catch (err) {
      options.log?.(`[machine ${machine.id}] cannot boot its virtual CD: ${(err as Error).message}`);
    }
    return undefined;
  };

  /** What the machine boots the agent from, if it does: its virtual CD, or the PXE environment. */
  const bootMedia = async (event: BootEvent): Promise<{ cmdline?: string; tls?: AgentTls; inspectionCallbackUrl?: string } | undefined> => {
    if (event.device === 'Pxe') return options.pxe === undefined ? undefined : { inspectionCallbackUrl: options.pxe.inspectionCallbackUrl };
    if (event.device !== 'Cd' || !event.image) return undefined;
    return agentMedia(event.machine, event.image);
  };

  const boot = async (event: BootEvent): Promise<VirtualAgent | undefined> => {
    const media = await bootMedia(event);
    if (media === undefined) return undefined;
    const machine = event.machine;
    if (event.device === 'Pxe') options.log?.(`[machine ${machine.id}] booted the agent ramdisk from the PXE environment`);
    const agentToken = kernelArg(media.cmdline, 'ipa-agent-token');
    const agent = new VirtualAgent({
      ...options,
      machine,
      port: ports.get(machine.id) ?? 0,
      nodeUuid: options.nodeUuidOf?.(machine),
      ...(agentToken === undefined ? {} : { agentToken }),
      ...(media.tls === undefined ? {} : { tls: media.tls }),
      ...(media.inspectionCallbackUrl === undefined ? {} : { inspectionCallbackUrl: media.inspectionCallbackUrl }),
    });
    agents.set(machine.id, agent);
    void agent.start().then(
      () => {
        if (agent.port !== undefined) ports.set(machine.id, agent.port);
      },
      (err: unknown) => options.log?.(`[agent ${machine.id}] failed to start: ${(err as Error).message}`),
    );
    return agent;
  };

  const factory = ((event: BootEvent) => boot(event)) as AgentGuestFactory;
  Object.assign(factory, { agents, agent: (id: string) => agents.get(id) });
  return factory;
}
