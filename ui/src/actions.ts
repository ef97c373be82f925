/**
 * What each action on a node does, in words for its confirmation, and the API calls it makes.
 * Pure apart from the request function passed in; unit-tested.
 */
import { type ProvisionVerb, VERB_TARGET } from './states';

export type ActionId = ProvisionVerb | 'maintenance-on' | 'maintenance-off' | 'power' | 'boot-device';

export type NodeLike = Readonly<Record<string, unknown>>;

export type Requester = (method: string, path: string, body?: unknown) => Promise<unknown>;

export const LABELS: Readonly<Record<ActionId, string>> = {
  manage: 'Manage',
  provide: 'Provide',
  deploy: 'Deploy',
  undeploy: 'Undeploy',
  clean: 'Clean',
  service: 'Service',
  abort: 'Abort',
  inspect: 'Inspect',
  'maintenance-on': 'Set maintenance',
  'maintenance-off': 'Unset maintenance',
  power: 'Power',
  'boot-device': 'Boot device',
};

export const POWER_TARGETS: readonly { readonly target: string; readonly label: string; readonly words: string }[] = [
  { target: 'power on', label: 'Power on', words: 'powers it on' },
  { target: 'power off', label: 'Power off', words: 'cuts its power at once (a hard power off)' },
  { target: 'soft power off', label: 'Soft power off', words: 'asks its operating system to shut down (ACPI), then waits for it' },
  { target: 'rebooting', label: 'Reboot', words: 'power-cycles it (hard)' },
  { target: 'soft rebooting', label: 'Soft reboot', words: 'asks its operating system to restart (ACPI)' },
];

const nameOf = (node: NodeLike) => String(node.name ?? node.uuid);

function cleaningWords(node: NodeLike): string {
  return node.automated_clean === false
    ? 'automated cleaning is disabled for this node, so it skips cleaning'
    : 'it boots the ramdisk and runs the enabled clean steps (erasing disk metadata and whatever else is enabled)';
}

/** The sentence a confirmation shows: what will happen to the node, in order. */
export function describeAction(
  id: ActionId,
  node: NodeLike,
  options: { powerTarget?: string; bootDevice?: string; persistent?: boolean } = {},
): string {
  const name = nameOf(node);
  const state = String(node.provision_state);
  switch (id) {
    case 'manage':
      return state === 'enroll'
        ? `Verifies ${name}: the conductor checks its driver_info by talking to its BMC (enroll → verifying → manageable). Nothing on the machine changes.`
        : `Returns ${name} to manageable (from ${state}). Nothing on the machine changes.`;
    case 'provide':
      return `Makes ${name} available for deployment: ${cleaningWords(node)}; then it is available (manageable → cleaning → available).`;
    case 'deploy':
      return `Deploys ${name}: the ramdisk agent writes the image below to its disk, overwriting what is there, then the node boots from disk (${state} → deploying → active).`;
    case 'undeploy':
      return `Tears down the instance on ${name}: it is powered off and ${cleaningWords(node)}, then it is available again (${state} → deleting → cleaning → available). The data on its disks is lost.`;
    case 'clean':
      return `Runs the clean steps below on ${name}, in the order given, then returns it to manageable (manageable → cleaning → manageable).`;
    case 'service':
      return `Runs the service steps below on ${name} while it keeps its instance, then returns it to active (active → servicing → active).`;
    case 'abort':
      return `Stops what ${name} is doing (${state}). An interrupted deploy ends in deploy failed, cleaning in clean failed (and maintenance), servicing back in active. A step that cannot be aborted finishes first.`;
    case 'inspect':
      return `Inspects ${name}'s hardware and records what it finds in its properties (manageable → inspecting → manageable).`;
    case 'maintenance-on':
      return `Puts ${name} in maintenance: conductors stop syncing its power state and provisioning it until maintenance is unset. The machine itself is not touched.`;
    case 'maintenance-off':
      return `Takes ${name} out of maintenance${node.fault ? ` and clears its fault (${String(node.fault)})` : ''}: conductors manage it again.`;
    case 'power': {
      const p = POWER_TARGETS.find((t) => t.target === options.powerTarget);
      return `Through its BMC, ${p ? p.words : `sets ${name}'s power to ${String(options.powerTarget)}`} — ${name} is ${String(node.power_state ?? 'in an unknown power state')} now.`;
    }
    case 'boot-device':
      return `Sets the device ${name} boots from next to ${options.bootDevice ?? '…'}${options.persistent ? ', for every boot from now on' : ', for the next boot only'}. It does not reboot the node.`;
  }
}

export interface ActionInput {
  readonly imageSource?: string;
  readonly imageChecksum?: string;
  /** A config drive: JSON text (meta_data, user_data, …) or a URL; empty for none. */
  readonly configDrive?: string;
  /** JSON text of a step list (clean, service). */
  readonly steps?: string;
  readonly reason?: string;
  readonly powerTarget?: string;
  readonly bootDevice?: string;
  readonly persistent?: boolean;
}

/** A form value the console refuses before asking the API (the API is asked for everything else). */
export class InputError extends Error {}

function parseSteps(text: string | undefined): unknown {
  try {
    const steps = JSON.parse(text ?? '') as unknown;
    if (!Array.isArray(steps))
      throw new InputError('The steps must be a JSON list, e.g. [{"interface": "deploy", "step": "erase_devices_metadata"}].');
    return steps;
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw new InputError(`The steps are not valid JSON: ${(err as Error).message}`);
  }
}

function parseConfigDrive(text: string | undefined): unknown {
  const value = (text ?? '').trim();
  if (value === '') return undefined;
  if (!value.startsWith('{')) return value;
  try {
    return JSON.parse(value) as unknown;
  } catch (err) {
    throw new InputError(`The config drive is not valid JSON: ${(err as Error).message}`);
  }
}

/** Perform an action: the API calls in order; the first refusal is thrown as the API gave it. */
export async function runAction(id: ActionId, node: NodeLike, input: ActionInput, request: Requester): Promise<void> {
  const base = `v1/nodes/${String(node.uuid)}`;
  const provision = (target: string, extra: Record<string, unknown> = {}) =>
    request('PUT', `${base}/states/provision`, { target, ...extra });
  switch (id) {
    case 'deploy': {
      const image = (input.imageSource ?? '').trim();
      if (image === '') throw new InputError('An image URL (image_source) is needed to deploy.');
      const configdrive = parseConfigDrive(input.configDrive);
      const patch = [{ op: 'add', path: '/instance_info/image_source', value: image }];
      if (input.imageChecksum?.trim()) patch.push({ op: 'add', path: '/instance_info/image_checksum', value: input.imageChecksum.trim() });
      await request('PATCH', base, patch);
      await provision(VERB_TARGET.deploy, configdrive === undefined ? {} : { configdrive });
      return;
    }
    case 'clean':
      await provision(VERB_TARGET.clean, { clean_steps: parseSteps(input.steps) });
      return;
    case 'service':
      await provision(VERB_TARGET.service, { service_steps: parseSteps(input.steps) });
      return;
    case 'maintenance-on':
      await request('PUT', `${base}/maintenance`, input.reason?.trim() ? { reason: input.reason.trim() } : {});
      return;
    case 'maintenance-off':
      await request('DELETE', `${base}/maintenance`);
      return;
    case 'power':
      await request('PUT', `${base}/states/power`, { target: input.powerTarget });
      return;
    case 'boot-device':
      await request('PUT', `${base}/management/boot_device`, { boot_device: input.bootDevice, persistent: input.persistent === true });
      return;
    default:
      await provision(VERB_TARGET[id]);
  }
}
