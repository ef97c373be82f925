/**
 * A node's Redfish ComputerSystem and the resources around it (its Managers' VirtualMedia, its
 * inventory collections), read and acted on through `RedfishClient`. The role of sushy's System
 * object in Ironic, reduced to what the interfaces use; `getSystem` maps failures to Ironic's errors
 * the way `redfish/utils.py` `get_system` does.
 */
import { RedfishConnectionError, RedfishError } from '#common/errors';
import type { Task } from '../base';
import { beforeAction } from '../guard';
import { RedfishClient, RedfishRequestError, type Resource } from './client';
import type { RedfishConfig } from './config';
import { parseDriverInfo } from './driver-info';

/** A value the BMC does not accept, found before asking it (sushy's InvalidParameterValueError). */
export class RedfishInvalidValue extends Error {
  override readonly name = 'RedfishInvalidValue';
  constructor(parameter: string, value: unknown, valid: readonly unknown[]) {
    super(`The parameter "${parameter}" value "${String(value)}" is invalid. Valid values are: ${valid.join(', ')}`);
  }
}

/** A failure the driver reports in its own words: Redfish errors become "<what failed>. Error: <why>". */
export function isRedfishFailure(err: unknown): err is RedfishRequestError | RedfishInvalidValue {
  return err instanceof RedfishRequestError || err instanceof RedfishInvalidValue;
}

/** Wrap a Redfish failure in Ironic's RedfishError with the operation's message; rethrow anything else. */
export function redfishFailure(err: unknown, what: string): never {
  if (isRedfishFailure(err)) throw new RedfishError(`${what} Error: ${err.message}`);
  throw err;
}

/** Ironic's mapping of a failure to reach the system: connection errors are retried and named so. */
export function reachFailure(node: string, err: unknown): never {
  if (err instanceof RedfishRequestError) {
    if (err.kind === 'connection') throw new RedfishConnectionError(node, err.message);
    if (err.status === 404) throw new RedfishError(`Resource ${err.url} not found`);
  }
  if (isRedfishFailure(err)) throw new RedfishError(err.message);
  throw err;
}

function link(resource: Resource | undefined, key: string): string | undefined {
  const value = resource?.[key] as { '@odata.id'?: unknown } | undefined;
  return typeof value?.['@odata.id'] === 'string' ? value['@odata.id'] : undefined;
}

function allowable(resource: Resource, key: string): string[] | undefined {
  const values = resource[`${key}@Redfish.AllowableValues`];
  return Array.isArray(values) ? values.map(String) : undefined;
}

/** The boot override as the BMC reports it. */
export interface BootOverride {
  readonly target: string | undefined;
  readonly enabled: string | undefined;
  readonly mode: string | undefined;
}

export class RedfishSystem {
  constructor(
    readonly client: RedfishClient,
    readonly path: string,
    public doc: Resource,
  ) {}

  /** Read the system again (e.g. while waiting for a power state). */
  async refresh(): Promise<void> {
    this.doc = await this.client.get(this.path);
  }

  get powerState(): string | undefined {
    return typeof this.doc.PowerState === 'string' ? this.doc.PowerState : undefined;
  }

  get boot(): BootOverride {
    const boot = (this.doc.Boot ?? {}) as Resource;
    const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
    return {
      target: str(boot.BootSourceOverrideTarget),
      enabled: str(boot.BootSourceOverrideEnabled),
      mode: str(boot.BootSourceOverrideMode),
    };
  }

  /** ComputerSystem.Reset, refused before asking when the BMC lists the reset types it allows. */
  async reset(resetType: string): Promise<void> {
    const action = ((this.doc.Actions ?? {}) as Resource)['#ComputerSystem.Reset'] as Resource | undefined;
    const allowed = action ? allowable(action, 'ResetType') : undefined;
    if (allowed && !allowed.includes(resetType)) throw new RedfishInvalidValue('ResetType', resetType, allowed);
    const target = typeof action?.target === 'string' ? action.target : `${this.path}/Actions/ComputerSystem.Reset`;
    await this.client.post(target, { ResetType: resetType });
  }

  /** PATCH the boot override; values the BMC lists as allowed are checked first. */
  async setBootOptions(options: { target?: string; enabled?: string; mode?: string }): Promise<void> {
    const boot = (this.doc.Boot ?? {}) as Resource;
    const patch: Resource = {};
    const fields = [
      ['target', 'BootSourceOverrideTarget'],
      ['enabled', 'BootSourceOverrideEnabled'],
      ['mode', 'BootSourceOverrideMode'],
    ] as const;
    for (const [option, field] of fields) {
      const value = options[option];
      if (value === undefined) continue;
      const allowed = allowable(boot, field);
      if (allowed && !allowed.includes(value)) throw new RedfishInvalidValue(field, value, allowed);
      patch[field] = value;
    }
    await this.client.patch(this.path, { Boot: patch });
  }

  /** The members of a collection this system links to (`Processors`, `EthernetInterfaces`, …); [] when absent. */
  async members(key: string, from: Resource = this.doc): Promise<Resource[]> {
    const path = link(from, key);
    if (path === undefined) return [];
    return this.collection(path);
  }

  async collection(path: string): Promise<Resource[]> {
    const collection = await this.client.get(path);
    const members = Array.isArray(collection.Members) ? (collection.Members as Resource[]) : [];
    const out: Resource[] = [];
    for (const member of members) {
      const memberPath = member['@odata.id'];
      if (typeof memberPath === 'string') out.push(await this.client.get(memberPath));
    }
    return out;
  }

  /** The Managers (BMCs) of this system, from Links.ManagedBy. */
  async managers(): Promise<Resource[]> {
    const links = ((this.doc.Links ?? {}) as Resource).ManagedBy;
    const out: Resource[] = [];
    for (const ref of Array.isArray(links) ? (links as Resource[]) : []) {
      if (typeof ref['@odata.id'] === 'string') out.push(await this.client.get(ref['@odata.id']));
    }
    return out;
  }

  /** Every VirtualMedia device of every manager of this system. */
  async virtualMedia(): Promise<Resource[]> {
    const out: Resource[] = [];
    for (const manager of await this.managers()) out.push(...(await this.members('VirtualMedia', manager)));
    return out;
  }

  async insertMedia(media: Resource, image: string): Promise<void> {
    const action = this.mediaAction(media, 'InsertMedia');
    const body = { Image: image, Inserted: true, WriteProtected: true };
    // Older BMCs take a PATCH of the device instead of the action.
    if (action) await this.client.post(action, body);
    else await this.client.patch(media['@odata.id'] as string, body);
  }

  async ejectMedia(media: Resource): Promise<void> {
    const action = this.mediaAction(media, 'EjectMedia');
    if (action) await this.client.post(action, {});
    else await this.client.patch(media['@odata.id'] as string, { Image: null, Inserted: false });
  }

  private mediaAction(media: Resource, name: string): string | undefined {
    const action = ((media.Actions ?? {}) as Resource)[`#VirtualMedia.${name}`] as Resource | undefined;
    return typeof action?.target === 'string' ? action.target : undefined;
  }

  /** The SecureBoot resource, or undefined when the BMC has none. */
  async secureBoot(): Promise<Resource | undefined> {
    const path = link(this.doc, 'SecureBoot');
    return path === undefined ? undefined : this.client.get(path);
  }

  async setSecureBoot(enabled: boolean): Promise<void> {
    const path = link(this.doc, 'SecureBoot');
    if (path !== undefined) await this.client.patch(path, { SecureBootEnable: enabled });
  }
}

/** The path of the only ComputerSystem, when driver_info names none (sushy's default system). */
async function defaultSystemPath(client: RedfishClient): Promise<string> {
  const root = await client.get(client.root);
  const systems = link(root, 'Systems');
  if (systems === undefined) throw new RedfishError(`The Redfish service at ${client.info.address} has no Systems collection`);
  const collection = await client.get(systems);
  const members = Array.isArray(collection.Members) ? (collection.Members as Resource[]) : [];
  const only = members.length === 1 ? members[0]?.['@odata.id'] : undefined;
  if (typeof only !== 'string') {
    throw new RedfishError(
      `Failed at determining default for "ComputerSystem": the BMC at ${client.info.address} has ${members.length} systems; ` +
        'set driver_info/redfish_system_id to the path of one of them',
    );
  }
  return only;
}

/**
 * Reach the node's ComputerSystem. Connection failures (after the client's retries) become
 * RedfishConnectionError, an unknown system "Resource … not found", other answers RedfishError.
 */
export async function getSystem(task: Task, config: RedfishConfig): Promise<RedfishSystem> {
  const info = parseDriverInfo(task.node, config.policy);
  const client = new RedfishClient(info, config, {
    onRetry: (retry) => task.log.warn('Redfish request failed, retrying', { node: task.node.uuid, ...retry }),
    beforeRequest: () => beforeAction(task.node),
  });
  try {
    const path = info.systemId ?? (await defaultSystemPath(client));
    return new RedfishSystem(client, path, await client.get(path));
  } catch (err) {
    task.log.error('Could not reach the Redfish system', { node: task.node.uuid, address: info.address, error: String(err) });
    reachFailure(task.node.uuid, err);
  }
}
