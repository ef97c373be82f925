/**
 * Derived key attributes: the index plumbing written beside an object's fields on every save.
 * Empty strings cannot be key values, so optional values get a prefix that keeps them non-empty;
 * a value that is absent leaves the attribute out, so a sparse index does not hold the item.
 */
import { randomBytes } from 'node:crypto';

/** A creation-ordered id: milliseconds since the epoch, then randomness to order ties uniquely. */
export function newSortId(now: number = Date.now()): string {
  return `${now.toString(36).padStart(10, '0')}${randomBytes(5).toString('hex')}`;
}

/**
 * `count` sort ids of objects created together at `now`, in order: one random start, counted up,
 * so a bulk import (`ironless fleet import`) lists its objects in the order it was given them.
 */
export function sortIdSequence(now: number, count: number): string[] {
  const span = 2 ** 40;
  const start = Math.floor((randomBytes(5).readUIntBE(0, 5) / span) * (span - count));
  const time = now.toString(36).padStart(10, '0');
  return Array.from({ length: count }, (_, i) => `${time}${(start + i).toString(16).padStart(10, '0')}`);
}

/** The creation time (epoch ms) a sort id starts with. */
export function sortIdTime(id: string): number {
  return parseInt(id.slice(0, 10), 36);
}

export const ALL_NODES = 'node';

export function shardKey(shard: string | null | undefined): string {
  return shard ? `s#${shard}` : 'n#';
}

/** Conductor groups compare case-insensitively (Ironic lowercases them; MySQL compares so). */
export function groupKey(group: string | null | undefined): string {
  return `g#${(group ?? '').toLowerCase()}`;
}

/** `v#<value>` for a present, non-empty value; undefined (attribute left out) otherwise. */
export function sparseKey(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? `v#${value}` : undefined;
}

/** MAC addresses are compared lower-case, as Ironic's MACAddressField normalises them. */
export function normalizeMac(address: string): string {
  return address.toLowerCase();
}

/** Keys of the unique-value guards in the `uniques` table. */
export const guard = {
  nodeName: (name: string) => `node/name/${name}`,
  nodeInstance: (instanceUuid: string) => `node/instance/${instanceUuid}`,
  portAddress: (address: string) => `port/address/${normalizeMac(address)}`,
  portName: (name: string) => `port/name/${name}`,
  portgroupName: (name: string) => `portgroup/name/${name}`,
  portgroupAddress: (address: string) => `portgroup/address/${normalizeMac(address)}`,
  deployTemplateName: (name: string) => `deploy_template/name/${name}`,
  allocationName: (name: string) => `allocation/name/${name}`,
  runbookName: (name: string) => `runbook/name/${name}`,
  /** JSON-encoded: a type or id holding "/" cannot make two pairs one key. */
  volumeConnectorId: (type: string, connectorId: string) => `volume_connector/id/${JSON.stringify([type, connectorId])}`,
  volumeTargetBootIndex: (nodeUuid: string, bootIndex: number) => `volume_target/boot_index/${nodeUuid}/${bootIndex}`,
};
