/**
 * Trait based networking rules (Ironic's `[conductor]trait_based_networking_config_file` and its
 * `config_file.py` validation): a mapping of trait name → `{ order?, actions: [{ action, filter,
 * min_count?, max_count? }] }`. Ironic reads it from a YAML file; Ironless from the conductor's
 * environment, as the same mapping in JSON (which is YAML too, so one file serves both).
 *
 * Invalid rules fail loudly, every reason listed, as Ironic's conductor refuses to start
 * (IncorrectConfiguration) on an invalid file.
 */
import { ConfigError, type Env, ENV } from '#common/config';
import { type Expression, FilterSyntaxError, parseFilter } from './filter';

export const ACTIONS = ['attach_port', 'attach_portgroup', 'bond_ports', 'group_and_attach_ports'] as const;
export type ActionName = (typeof ACTIONS)[number];
const ACTION_KEYS = ['action', 'filter', 'min_count', 'max_count'];

export interface TraitAction {
  readonly trait: string;
  readonly action: ActionName;
  /** The filter as written (for messages). */
  readonly filterText: string;
  readonly filter: Expression;
  readonly minCount: number | null;
  readonly maxCount: number | null;
}

export interface NetworkTrait {
  readonly name: string;
  /** Lower orders apply first (default 1). */
  readonly order: number;
  readonly actions: readonly TraitAction[];
}

/** The conductor's trait based networking settings (Ironic's `[conductor]` options). */
export interface TbnConfig {
  readonly traits: readonly NetworkTrait[];
  /** `trait_based_networking_raise_when_no_match` (default true). */
  readonly raiseWhenNoMatch: boolean;
  /** `trait_based_networking_enable_default_trait` (default true). */
  readonly enableDefaultTrait: boolean;
}

/** The trait applied when none of the node's traits has rules (and the default trait is enabled). */
export const DEFAULT_TRAIT_NAME = 'CUSTOM_DEFAULT_TBN_TRAIT';

/** Ironic's built-in default: attach the first free port (newest first). */
export const BUILTIN_DEFAULT_TRAIT: NetworkTrait = {
  name: DEFAULT_TRAIT_NAME,
  order: 1,
  actions: [
    {
      trait: DEFAULT_TRAIT_NAME,
      action: 'attach_port',
      filterText: 'port.is_port || port.is_portgroup',
      filter: parseFilter('port.is_port || port.is_portgroup'),
      minCount: null,
      maxCount: 1,
    },
  ],
};

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function count(value: unknown, where: string, reasons: string[]): number | null {
  if (value === undefined || value === null) return null;
  const n = typeof value === 'string' && /^\s*-?\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n)) {
    reasons.push(`${where} must be a whole number, got ${JSON.stringify(value)}`);
    return null;
  }
  return n;
}

function parseAction(trait: string, index: number, raw: unknown, reasons: string[]): TraitAction | undefined {
  const where = `'${trait}' action ${index + 1}`;
  if (!isRecord(raw)) {
    reasons.push(`${where} must be a mapping with "action" and "filter"`);
    return undefined;
  }
  const before = reasons.length;
  for (const key of ['action', 'filter']) if (!(key in raw)) reasons.push(`'${trait}' trait is missing '${key}' key`);
  for (const key of Object.keys(raw)) {
    if (!ACTION_KEYS.includes(key)) reasons.push(`'${trait}' trait action has unrecognized key '${key}'`);
  }
  if ('action' in raw && !(ACTIONS as readonly unknown[]).includes(raw.action)) {
    reasons.push(`'${trait}' trait action has unrecognized action '${String(raw.action)}' (known: ${ACTIONS.join(', ')})`);
  }
  let filter: Expression | undefined;
  if ('filter' in raw) {
    try {
      if (typeof raw.filter !== 'string') throw new FilterSyntaxError('it is not a string');
      filter = parseFilter(raw.filter);
    } catch (err) {
      if (!(err instanceof FilterSyntaxError)) throw err;
      reasons.push(`'${trait}' trait action has malformed filter expression: '${String(raw.filter)}' (${err.message})`);
    }
  }
  const minCount = count(raw.min_count, `${where} min_count`, reasons);
  const maxCount = count(raw.max_count, `${where} max_count`, reasons);
  if (reasons.length > before || filter === undefined) return undefined;
  const action = raw.action as ActionName;
  if (action === 'group_and_attach_ports') {
    if (minCount === null || minCount < 2) {
      reasons.push(`'${trait}' has an invalid '${action}': it must have a min_count of 2 or greater. Got '${String(minCount)}'.`);
      return undefined;
    }
    if (maxCount !== null && maxCount < minCount) {
      reasons.push(
        `'${trait}' has an invalid '${action}': its max_count ('${maxCount}') must be greater than or equal to its min_count ('${minCount}').`,
      );
      return undefined;
    }
  }
  return { trait, action, filterText: raw.filter as string, filter, minCount, maxCount };
}

/** The traits of a rules mapping; ConfigError listing every problem when it is invalid. */
export function parseRules(rules: unknown, source = 'trait based networking rules'): NetworkTrait[] {
  if (!isRecord(rules)) throw new ConfigError(`${source} must be a mapping of trait names to their actions`);
  const reasons: string[] = [];
  const traits: NetworkTrait[] = [];
  for (const [name, members] of Object.entries(rules)) {
    if (!isRecord(members) || !('actions' in members)) {
      reasons.push(`'${name}' trait does not include an 'actions' key`);
      continue;
    }
    if (!Array.isArray(members.actions)) {
      reasons.push(`'${name}.actions' does not consist of a list of actions`);
      continue;
    }
    const order = count(members.order, `'${name}' order`, reasons) ?? 1;
    const actions = members.actions.map((raw, i) => parseAction(name, i, raw, reasons));
    traits.push({ name, order, actions: actions.filter((a): a is TraitAction => a !== undefined) });
  }
  if (reasons.length > 0) throw new ConfigError(`${source} are invalid:\n  ${reasons.join('\n  ')}`);
  return traits;
}

function flag(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (['true', '1', 'yes', 'on'].includes(raw.toLowerCase())) return true;
  if (['false', '0', 'no', 'off'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(`Environment variable ${name} must be true or false, got "${raw}"`);
}

/**
 * Trait based networking as configured, or undefined when it is off (Ironic's
 * `enable_trait_based_networking` false): on when TRAIT_BASED_NETWORKING_RULES holds rules.
 */
export function loadTbnConfig(env: Env = process.env): TbnConfig | undefined {
  const raw = env[ENV.tbnRules];
  if (raw === undefined || raw.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError(`Environment variable ${ENV.tbnRules} must be a JSON object of trait rules, got "${raw}"`);
  }
  return {
    traits: parseRules(parsed, `Environment variable ${ENV.tbnRules}`),
    raiseWhenNoMatch: flag(env, ENV.tbnRaiseWhenNoMatch, true),
    enableDefaultTrait: flag(env, ENV.tbnEnableDefaultTrait, true),
  };
}
