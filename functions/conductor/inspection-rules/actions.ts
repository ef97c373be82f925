/**
 * The actions of inspection rules (Ironic's `inspection_rules/actions.py`), run on the node being
 * inspected and its ports with arguments already interpolated. The node is changed in memory and
 * saved by the inspection flow with the rest of its changes; ports are saved at once, as Ironic
 * saves them. A failure is Ironic's RuleActionExecutionFailure with its message, which fails the
 * inspection.
 *
 * Where Ironic would set any attribute of its node object, Ironless takes only the node's (or
 * port's) fields, and never those that identify it or hold its lock and state (changing them here
 * would break the inspection that is running): such a path fails the action, saying why.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { HardwareInspectionFailure, PortNotFound } from '#common/errors';
import { InspectionRuleExecutionFailure, RuleActionExecutionFailure } from '#common/inspection-rules/errors';
import { pyRepr, pyStr, pyTruthy } from '#common/pyrepr';
import type { VersionedObject } from '#objects/base';
import type { FieldDef } from '#objects/fields';
import type { Node } from '#objects/node';
import type { Port } from '#objects/port';

/** What actions work on: the node, its ports (loaded once), the log, and HTTP for api-call. */
export interface RuleTask {
  readonly node: Node;
  readonly log: Logger;
  ports(): Promise<Port[]>;
  savePort(port: Port): Promise<void>;
  readonly fetch?: typeof fetch;
}

export type ActionArgs = Record<string, unknown>;

/** Fields no rule may set or delete: identity, timestamps, the lock and the provision state. */
const PROTECTED_FIELDS = new Set([
  'uuid',
  'created_at',
  'updated_at',
  'reservation',
  'provision_state',
  'target_provision_state',
  'node_uuid',
]);

/** Ironic's normalize_path: `/properties/cpus` or `properties.cpus`. */
export function normalizePath(path: unknown): string[] {
  const text = pyStr(path);
  return text.includes('/') ? text.replace(/^\/+|\/+$/g, '').split('/') : text.split('.');
}

const MAX_TRAITS = 50;

function fieldOf(obj: VersionedObject, name: string): FieldDef {
  const fields = (obj.constructor as typeof VersionedObject).fields;
  const def = fields[name];
  const kind = (obj.constructor as typeof VersionedObject).objName;
  if (def === undefined) throw new Error(`'${kind}' object has no attribute '${name}'`);
  if (PROTECTED_FIELDS.has(name)) throw new Error(`${kind} field ${name} cannot be changed by an inspection rule`);
  return def;
}

/** oslo's field coercion, for the kinds a rule can reasonably set. */
function coerce(def: FieldDef, name: string, value: unknown): unknown {
  if (value === null || value === undefined) {
    if (def.nullable) return null;
    throw new Error(`Field \`${name}' cannot be None`);
  }
  switch (def.kind) {
    case 'string':
    case 'uuid':
    case 'macaddress':
    case 'datetime':
      if (typeof value === 'object')
        throw new Error(`A string is required in field ${name}, not a ${Array.isArray(value) ? 'list' : 'dict'}`);
      return pyStr(value);
    case 'integer': {
      const n = typeof value === 'string' && /^\s*[-+]?\d+\s*$/.test(value) ? Number(value) : value;
      if (typeof n === 'boolean') return Number(n);
      if (typeof n !== 'number' || !Number.isFinite(n)) throw new Error(`invalid literal for int() with base 10: ${pyRepr(value)}`);
      return Math.trunc(n);
    }
    case 'boolean':
      return pyTruthy(value);
    case 'dict':
      if (value === null || typeof value !== 'object' || Array.isArray(value))
        throw new Error(`A dict is required in field ${name}, not a ${typeof value}`);
      return value;
    case 'list':
      if (!Array.isArray(value)) throw new Error(`A list is required in field ${name}, not a ${typeof value}`);
      return value;
  }
}

/** A deep copy of a dict field, to change and assign back (the object tracks assignments). */
function copyOf(obj: VersionedObject, name: string): Record<string, unknown> {
  const value = (obj as unknown as Record<string, unknown>)[name];
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new Error(
      `'${value === null ? 'NoneType' : typeof value === 'string' ? 'str' : Array.isArray(value) ? 'list' : typeof value}' object has no attribute 'setdefault'`,
    );
  }
  return structuredClone(value as Record<string, unknown>);
}

function setDefault(dict: Record<string, unknown>, key: string, fallback: unknown): Record<string, unknown> | unknown {
  if (!(key in dict)) dict[key] = fallback;
  return dict[key];
}

function asDict(value: unknown): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new Error(`${pyRepr(value)} does not support item assignment`);
  return value as Record<string, unknown>;
}

function setPath(obj: VersionedObject, parts: string[], value: unknown): void {
  const [head, ...rest] = parts as [string, ...string[]];
  const def = fieldOf(obj, head);
  const target = obj as unknown as Record<string, unknown>;
  if (rest.length === 0) {
    target[head] = coerce(def, head, value);
    return;
  }
  const base = copyOf(obj, head);
  let current = base;
  for (const part of rest.slice(0, -1)) current = asDict(setDefault(current, part, {}));
  current[rest.at(-1) as string] = value;
  target[head] = base;
}

function extendPath(obj: VersionedObject, parts: string[], value: unknown, unique: boolean, path: unknown): void {
  const [head, ...rest] = parts as [string, ...string[]];
  const def = fieldOf(obj, head);
  const target = obj as unknown as Record<string, unknown>;
  let base: Record<string, unknown> | undefined;
  let list: unknown;
  if (rest.length === 0) {
    list = Array.isArray(target[head]) ? [...(target[head] as unknown[])] : target[head];
  } else {
    base = copyOf(obj, head);
    let current = base;
    for (const part of rest.slice(0, -1)) current = asDict(setDefault(current, part, {}));
    list = setDefault(current, rest.at(-1) as string, []);
  }
  if (!Array.isArray(list)) {
    throw new RuleActionExecutionFailure(`Cannot extend non-list attribute ${pyStr(path)} with value ${pyStr(value)}`);
  }
  if (!unique || !list.some((v) => JSON.stringify(v) === JSON.stringify(value))) list.push(value);
  target[head] = rest.length === 0 ? coerce(def, head, list) : base;
}

function deletePath(obj: VersionedObject, parts: string[]): void {
  const [head, ...rest] = parts as [string, ...string[]];
  const def = fieldOf(obj, head);
  const target = obj as unknown as Record<string, unknown>;
  if (rest.length === 0) {
    // Deleting a field of an Ironic object unsets it: it reads as its default again.
    target[head] = def.default === undefined ? coerce(def, head, null) : structuredClone(def.default);
    return;
  }
  const base = copyOf(obj, head);
  let current = base;
  for (const part of rest.slice(0, -1)) {
    if (!(part in current)) throw new Error(pyRepr(part));
    current = asDict(current[part]);
  }
  const last = rest.at(-1) as string;
  if (!(last in current)) throw new Error(pyRepr(last));
  delete current[last];
  target[head] = base;
}

/** Run `fn`, turning any failure but Ironic's own into RuleActionExecutionFailure(`message: reason`). */
async function guarded(message: string, fn: () => void | Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (err) {
    throw new RuleActionExecutionFailure(`${message}: ${(err as Error).message}`);
  }
}

async function findPort(task: RuleTask, portId: unknown): Promise<Port> {
  const port = (await task.ports()).find((p) => p.uuid === portId);
  if (port === undefined) throw new PortNotFound(pyStr(portId));
  return port;
}

/** Ironic's update_nested_dict / _get_nested_value / _unset_nested_dict over a dotted path. */
function dotted(path: unknown): string[] {
  return pyStr(path).split('.');
}

function setNested(data: Record<string, unknown>, path: unknown, value: unknown): void {
  const keys = dotted(path);
  let current = data;
  for (const key of keys.slice(0, -1)) current = asDict(setDefault(current, key, {}));
  current[keys.at(-1) as string] = value;
}

function getNested(data: Record<string, unknown>, path: unknown): unknown {
  let current: unknown = data;
  for (const key of dotted(path)) {
    if (current === null || typeof current !== 'object' || !(key in current)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function unsetNested(data: Record<string, unknown>, path: unknown): boolean {
  const keys = dotted(path);
  let current: unknown = data;
  for (const key of keys.slice(0, -1)) {
    if (current === null || typeof current !== 'object' || Array.isArray(current) || !(key in current)) return false;
    current = (current as Record<string, unknown>)[key];
  }
  const last = keys.at(-1) as string;
  if (current === null || typeof current !== 'object' || Array.isArray(current) || !(last in current)) return false;
  const dict = current as Record<string, unknown>;
  if (Object.keys(dict).length === 1 && keys.length > 1) {
    // The last key of a nested dict takes its parent's entry with it (as Ironic's does).
    let parent: Record<string, unknown> = data;
    for (const key of keys.slice(0, -2)) parent = parent[key] as Record<string, unknown>;
    delete parent[keys.at(-2) as string];
  } else {
    delete dict[last];
  }
  return true;
}

const LOG_LEVELS = ['debug', 'info', 'warning', 'error', 'critical'];

async function apiCall(task: RuleTask, args: ActionArgs): Promise<void> {
  const url = pyStr(args.url);
  const timeout = Number(args.timeout ?? 5);
  const retries = Number(args.retries ?? 3);
  const backoff = Number(args.backoff_factor ?? 0.3);
  if (!Number.isFinite(timeout) || !Number.isFinite(retries) || !Number.isFinite(backoff)) {
    throw new RuleActionExecutionFailure(`Invalid parameter: could not convert string to float: ${pyRepr(args.timeout)}`);
  }
  if (timeout <= 0) throw new RuleActionExecutionFailure('Invalid parameter: timeout must be greater than zero');
  const headers = args.headers !== null && typeof args.headers === 'object' ? (args.headers as Record<string, string>) : undefined;
  const proxy = pyTruthy(args.proxies) ? selectProxy(url, args.proxies) : undefined;
  const through = proxy === undefined ? undefined : await proxyAgent(url, proxy);
  const doFetch = task.fetch ?? through?.fetch ?? fetch;
  const dispatcher = through === undefined ? {} : { dispatcher: through.agent };
  try {
    await getWithRetries(doFetch, url, { headers, timeout, retries, backoff, dispatcher });
  } catch (err) {
    task.log.error('Inspection rule API call failed', { url, error: (err as Error).message });
    throw err;
  } finally {
    await through?.agent.close();
  }
}

interface GetOptions {
  readonly headers: Record<string, string> | undefined;
  readonly timeout: number;
  readonly retries: number;
  readonly backoff: number;
  readonly dispatcher: object;
}

async function getWithRetries(doFetch: typeof fetch, url: string, options: GetOptions): Promise<void> {
  const { headers, timeout, retries, backoff } = options;
  let lastError = '';
  // urllib3's Retry: GETs retried on 429 and 5xx and on connection errors, the n-th retry after
  // backoff_factor * 2^(n-1) seconds (the first at once); the last answer is then judged.
  for (let attempt = 0; attempt <= Math.max(0, Math.trunc(retries)); attempt++) {
    if (attempt > 1) await new Promise((r) => setTimeout(r, backoff * 1000 * 2 ** (attempt - 1)));
    try {
      const init = { method: 'GET', ...(headers ? { headers } : {}), signal: AbortSignal.timeout(timeout * 1000), ...options.dispatcher };
      const response = await doFetch(url, init);
      await response.arrayBuffer();
      if (response.ok) return;
      const kind = response.status < 500 ? 'Client' : 'Server';
      lastError = `${response.status} ${kind} Error: ${response.statusText} for url: ${url}`;
      if (![429, 500, 502, 503, 504].includes(response.status)) break;
    } catch (err) {
      lastError = (err as Error).message;
    }
  }
  throw new RuleActionExecutionFailure(`Request to ${url} failed: ${lastError}`);
}

/**
 * The proxy requests would use for `url` from an api-call's `proxies` (its select_proxy: the keys
 * `scheme://host`, `scheme`, `all://host`, `all`, in that order); a proxy without a scheme is http.
 */
export function selectProxy(url: string, proxies: unknown): string | undefined {
  if (proxies === null || typeof proxies !== 'object' || Array.isArray(proxies)) {
    throw new RuleActionExecutionFailure(`Invalid parameter: proxies must be a dictionary, not ${pyRepr(proxies)}`);
  }
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return undefined; // the request itself fails with the URL's error
  }
  const scheme = target.protocol.slice(0, -1);
  const keys = [`${scheme}://${target.hostname}`, scheme, `all://${target.hostname}`, 'all'];
  const table = proxies as Record<string, unknown>;
  const key = keys.find((k) => Object.prototype.hasOwnProperty.call(table, k) && pyTruthy(table[k]));
  if (key === undefined) return undefined;
  const proxy = pyStr(table[key]);
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(proxy) ? proxy : `http://${proxy}`;
}

/** An HTTP(S) proxy agent (undici's, loaded only for a rule that names a proxy) and the fetch that uses it. */
async function proxyAgent(url: string, proxy: string) {
  const scheme = proxy.slice(0, proxy.indexOf(':')).toLowerCase();
  if (scheme !== 'http' && scheme !== 'https') {
    throw new RuleActionExecutionFailure(`Request to ${url} failed: proxy scheme ${scheme} is not supported (http or https)`);
  }
  const { ProxyAgent, fetch: proxiedFetch } = await import('undici');
  // As requests does: an http URL goes to the proxy in absolute form, an https one through a CONNECT tunnel.
  return { agent: new ProxyAgent({ uri: proxy, proxyTunnel: false }), fetch: proxiedFetch as unknown as typeof fetch };
}

export const ACTION_RUNNERS: Readonly<Record<string, (task: RuleTask, args: ActionArgs) => Promise<void>>> = {
  fail: async (_task, args) => {
    throw new HardwareInspectionFailure(pyStr(args.msg));
  },
  log: async (task, args) => {
    const level = pyStr(args.level ?? 'info').toLowerCase();
    if (!LOG_LEVELS.includes(level)) {
      throw new InspectionRuleExecutionFailure(`Invalid log level: ${level}. Choose from ${pyRepr(LOG_LEVELS)}`);
    }
    const attributes = { node: task.node.uuid };
    const message = pyStr(args.msg);
    if (level === 'debug') task.log.debug(message, attributes);
    else if (level === 'info') task.log.info(message, attributes);
    else if (level === 'warning') task.log.warn(message, attributes);
    else task.log.error(message, attributes);
  },
  'set-attribute': (task, args) =>
    guarded(`Failed to set attribute ${pyStr(args.path)} with value ${pyStr(args.value)}`, () =>
      setPath(task.node, normalizePath(args.path), args.value),
    ),
  'extend-attribute': (task, args) =>
    guarded(`Failed to extend attribute ${pyStr(args.path)}`, () =>
      extendPath(task.node, normalizePath(args.path), args.value, pyTruthy(args.unique), args.path),
    ),
  'del-attribute': (task, args) =>
    guarded(`Failed to delete attribute at ${pyStr(args.path)}`, () => deletePath(task.node, normalizePath(args.path))),
  'set-capability': (task, args) =>
    guarded(`Failed to set capability ${pyStr(args.name)}`, () => {
      // Ironic's add_node_capability appends, even when the capability is there already.
      const properties = { ...task.node.properties };
      const added = `${pyStr(args.name)}:${pyStr(args.value)}`;
      properties.capabilities = pyTruthy(properties.capabilities) ? `${pyStr(properties.capabilities)},${added}` : added;
      task.node.properties = properties;
    }),
  'unset-capability': (task, args) =>
    guarded(`Failed to unset capability ${pyStr(args.name)}`, () => {
      const properties = { ...task.node.properties };
      const current = properties.capabilities ?? '';
      if (typeof current !== 'string') throw new Error(`'${Array.isArray(current) ? 'list' : 'dict'}' object has no attribute 'split'`);
      properties.capabilities = current
        .split(',')
        .filter((cap) => !cap.startsWith(`${pyStr(args.name)}:`))
        .join(',');
      task.node.properties = properties;
    }),
  'add-trait': (task, args) =>
    guarded(`Failed to add new trait ${pyStr(args.name)}`, () => {
      const trait = pyStr(args.name);
      if (task.node.traits.includes(trait)) return;
      const count = task.node.traits.length + 1;
      if (count > MAX_TRAITS) {
        throw new Error(
          `Could not modify traits for node ${task.node.uuid} as it would exceed the maximum number of traits per node (${count} vs. ${MAX_TRAITS})`,
        );
      }
      task.node.traits = [...task.node.traits, trait];
    }),
  'remove-trait': async (task, args) => {
    const trait = pyStr(args.name);
    if (!task.node.traits.includes(trait)) {
      task.log.warn(`Failed to remove trait ${trait}: Node ${task.node.uuid} doesn't have a trait ${trait}`, { node: task.node.uuid });
      return;
    }
    task.node.traits = task.node.traits.filter((t) => t !== trait);
  },
  'set-plugin-data': (_task, args) =>
    guarded(`Failed to set plugin data at ${pyStr(args.path)}`, () =>
      setNested(args.plugin_data as Record<string, unknown>, args.path, args.value),
    ),
  'extend-plugin-data': (_task, args) =>
    guarded(`Failed to extend plugin data at ${pyStr(args.path)}`, () => {
      const data = args.plugin_data as Record<string, unknown>;
      const found = getNested(data, args.path);
      const current = pyTruthy(found) ? found : [];
      if (!Array.isArray(current)) throw new Error(`'${typeof current === 'string' ? 'str' : 'dict'}' object has no attribute 'append'`);
      setNested(data, args.path, current);
      if (!pyTruthy(args.unique) || !current.some((v) => JSON.stringify(v) === JSON.stringify(args.value))) current.push(args.value);
    }),
  'unset-plugin-data': (task, args) =>
    guarded(`Failed to unset plugin data at ${pyStr(args.path)}`, () => {
      if (!unsetNested(args.plugin_data as Record<string, unknown>, args.path)) task.log.warn(`Path ${pyStr(args.path)} not found`);
    }),
  'set-port-attribute': async (task, args) => {
    const port = await findPort(task, args.port_id);
    await guarded(`Failed to set attribute ${pyStr(args.path)} for port ${pyStr(args.port_id)}`, async () => {
      setPath(port, normalizePath(args.path), args.value);
      await task.savePort(port);
    });
  },
  'extend-port-attribute': async (task, args) => {
    const port = await findPort(task, args.port_id);
    await guarded(`Failed to extend attribute ${pyStr(args.path)} for port ${pyStr(args.port_id)}`, async () => {
      extendPath(port, normalizePath(args.path), args.value, pyTruthy(args.unique), args.path);
      await task.savePort(port);
    });
  },
  'del-port-attribute': async (task, args) => {
    const port = await findPort(task, args.port_id);
    await guarded(`Failed to delete attribute ${pyStr(args.path)} for port ${pyStr(args.port_id)}`, async () => {
      deletePath(port, normalizePath(args.path));
      await task.savePort(port);
    });
  },
  'api-call': apiCall,
};
