/**
 * What a node create checks and how it fills in a new node (Ironic's NodesController.post and
 * objects.Node.create), without the lookups: the API's `POST /v1/nodes` and the operator's bulk
 * import (`ironless fleet import`) both build their nodes here, so an imported node is the node
 * the API would have created from the same body.
 */
import { Invalid, InvalidParameterValue, NotAcceptable } from '#common/errors';
import { newUuid } from '#common/ids';
import { AVAILABLE, ENROLL } from '#common/states';
import { Node } from '#objects/node';
import { argUuid } from './args';
import { pyStr } from '#common/pyrepr';
import { checkAndUpdateInterfaces } from './interfaces';
import { type ApiVersion, atLeast } from './microversion';
import { checkNodeName } from './names';
import { NODE_SCHEMA } from './schemas/node';
import { parseBoolean, validateSchema } from './validation';
import { fieldAllowed } from './views/node';

/** Node fields a create request gives as booleans or UUIDs, converted in Ironic's order. */
const VALIDATE_EXTRA: readonly [string, 'bool' | 'uuid'][] = [
  ['automated_clean', 'bool'],
  ['chassis_uuid', 'uuid'],
  ['console_enabled', 'bool'],
  ['disable_power_off', 'bool'],
  ['instance_uuid', 'uuid'],
  ['protected', 'bool'],
  ['maintenance', 'bool'],
  ['retired', 'bool'],
  ['uuid', 'uuid'],
];

/** Ironic's NODE_VALIDATE_EXTRA: booleans parsed, UUIDs checked, in place. */
export function validateExtra(body: Record<string, unknown>): void {
  for (const [field, kind] of VALIDATE_EXTRA) {
    if (!(field in body)) continue;
    if (kind === 'bool') body[field] = parseBoolean(field, body[field]);
    else body[field] = argUuid(field, body[field]) ?? null;
  }
  if (body.secure_boot !== undefined) body.secure_boot = parseBoolean('secure_boot', body.secure_boot);
}

/** Fields newer than the request's version may not be set (Ironic's reject_fields_in_newer_versions). */
function rejectNewerFields(version: ApiVersion, body: Record<string, unknown>): void {
  for (const [field, value] of Object.entries(body)) {
    if (fieldAllowed(field, version)) continue;
    const empty = field === 'conductor_group' ? '' : null;
    if (field === 'name' && value === null) continue;
    if (value !== empty && value !== undefined) throw new NotAcceptable('Request not acceptable.');
  }
}

const INT_PROPERTIES = ['local_gb', 'cpus', 'memory_mb'];

/** Python's int() of a property value, or undefined when it has none. */
function pyInt(value: unknown): number | undefined {
  if (typeof value === 'boolean') return Number(value);
  if (typeof value === 'number') return Number.isFinite(value) ? Math.trunc(value) : undefined;
  if (typeof value === 'string' && /^\s*[-+]?\d+(_\d+)*\s*$/.test(value)) return Number(value.replace(/_/g, ''));
  return undefined;
}

/** local_gb, cpus and memory_mb must be non-negative integers (Ironic's Node._validate_property_values). */
export function checkPropertyValues(uuid: string, properties: unknown): void {
  if (properties === null || typeof properties !== 'object') return;
  const bad: string[] = [];
  for (const name of INT_PROPERTIES) {
    const value = (properties as Record<string, unknown>)[name];
    if (value === undefined || value === null) continue;
    const n = pyInt(value);
    if (n === undefined || n < 0) bad.push(`${name}=${pyStr(value)}`);
  }
  if (bad.length > 0) {
    throw new InvalidParameterValue(
      `The following properties for node ${uuid} should be non-negative integers, but provided values are: ${bad.join(', ')}`,
    );
  }
}

/** A conductor group may use letters, digits, "_", "-" and "." only; it is stored lower-cased. */
export function formatConductorGroup(group: string): string {
  if (!/^[a-zA-Z0-9_\-.]*$/.test(group)) throw new InvalidParameterValue(`Expected a conductor group but received ${group}.`);
  return group.toLowerCase();
}

/** A create body that passed the checks needing no lookup, normalised in place. */
export interface CheckedCreateBody {
  readonly body: Record<string, unknown>;
  /** The node's UUID: the one given, or a new one. */
  readonly uuid: string;
  /** The conductor group as given ('' when none). */
  readonly group: string;
}

/**
 * The checks of a create body that need no lookup, in Ironic's order: the schema, booleans and
 * UUIDs, fields newer than `version`, the name, the owner. What follows them in Ironic (the
 * chassis and parent node exist, a conductor serves the driver) is the caller's.
 */
export function checkCreateBody(parsed: unknown, version: ApiVersion): CheckedCreateBody {
  validateSchema('node', NODE_SCHEMA, parsed);
  const body = parsed as Record<string, unknown>;
  validateExtra(body);
  rejectNewerFields(version, body);
  const uuid = (body.uuid as string | null | undefined) || newUuid();
  const group = (body.conductor_group as string | null | undefined) || '';
  if (body.name !== undefined && body.name !== null) {
    checkNodeName(body.name, version, (name) => `Cannot create node with invalid name '${name}'`);
  }
  if (body.owner) throw new Invalid('Cannot create a node as a project scoped admin with an owner other than your own project.');
  return { body, uuid, group };
}

/**
 * The new node a checked body describes: its set fields, the provision state a create at
 * `version` starts in (enroll from 1.11), the hardware type's default interfaces, the property
 * values checked, the conductor group lower-cased. The store stamps `created_at` again on write.
 */
export function newNode(body: Record<string, unknown>, uuid: string, group: string, version: ApiVersion): Node {
  const data: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(body)) if (value !== null && value !== undefined) data[field] = value;
  delete data.owner;
  data.uuid = uuid;
  data.provision_state = atLeast(version, 11) ? ENROLL : AVAILABLE;
  checkAndUpdateInterfaces(data);
  checkPropertyValues(uuid, data.properties);
  data.conductor_group = formatConductorGroup(group);
  data.created_at = new Date().toISOString();
  return new Node(data);
}
