/**
 * Plugging the virtual agent into a fleet: a `GuestFactory` that boots an agent when a machine
 * boots the agent ISO from its virtual CD (any image whose URL ends in the fleet's agent ISO path,
 * or what `isAgentImage` accepts) and stops it when the machine powers off. Each machine's agent
 * listens on the same port at every boot, as a real agent on its machine's address would, so
 * Ironic's stored callback URL stays right across reboots.
 */
import type { BootEvent, Guest, GuestFactory, VirtualMachine } from '../machine';
import { AGENT_ISO_PATH } from '../server';
import { type AgentOptions, VirtualAgent } from './agent';

export interface AgentFactoryOptions extends Omit<AgentOptions, 'machine' | 'apiUrl' | 'port' | 'nodeUuid'> {
  /** Ironic's API URL the agents talk to. */
  readonly apiUrl: string;
  /** Whether a boot image is the agent ramdisk; default: its URL path ends with the agent ISO path. */
  readonly isAgentImage?: (image: string) => boolean;
  /** The node UUID a machine's agent sends with its lookups, when known (default: none, MACs only). */
  readonly nodeUuidOf?: (machine: VirtualMachine) => string | undefined;
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

  const boot = (event: BootEvent): Guest | undefined => {
    if (event.device !== 'Cd' || !event.image || !isAgent(event.image)) return undefined;
    const machine = event.machine;
    const make = (port: number) => {
      const made = new VirtualAgent({ ...options, machine, port, nodeUuid: options.nodeUuidOf?.(machine) });
      agents.set(machine.id, made);
      return made;
    };
    // This boot's agent, whichever attempt runs: the guest stops that one, not a later boot's.
    let agent = make(ports.get(machine.id) ?? 0);
    const started = agent.start().catch(async (err: unknown) => {
      // The port this machine had is taken by something else now: take any.
      if ((err as { code?: string }).code !== 'EADDRINUSE' || !agent.alive) throw err;
      await agent.stop();
      agent = make(0);
      return agent.start();
    });
    void started.then(
      () => {
        if (agent.port !== undefined) ports.set(machine.id, agent.port);
      },
      (err: unknown) => options.log?.(`[agent ${machine.id}] failed to start: ${(err as Error).message}`),
    );
    return { stop: () => agent.stop() };
  };

  const factory = ((event: BootEvent) => boot(event)) as AgentGuestFactory;
  Object.assign(factory, { agents, agent: (id: string) => agents.get(id) });
  return factory;
}
