/**
 * The operators a rule's conditions may use and the actions it may run, with the arguments each
 * takes (Ironic's `inspection_rules/operators.py` and `actions.py`, whose argument lists are the
 * signatures of their `__call__`). Names keep Ironic's order: the API's schema lists them so in its
 * messages. Which arguments are interpolated (`{inventory[cpu][count]}`) outside a loop is also
 * Ironic's choice per operator and action; inside a loop every argument is.
 */
import { InspectionRuleValidationFailure } from './errors';

export interface OpSignature {
  readonly required: readonly string[];
  readonly optional: readonly string[];
  /** Arguments interpolated with the inspection data (all of them inside a loop). */
  readonly formatted: readonly string[];
  /** The action works on the inspection's plugin data, which the engine passes as `plugin_data`. */
  readonly pluginData?: boolean;
}

const sig = (required: string[], optional: string[] = [], formatted: string[] = [], pluginData = false): OpSignature => ({
  required,
  optional,
  formatted,
  ...(pluginData ? { pluginData } : {}),
});

export const OPERATORS: Readonly<Record<string, OpSignature>> = {
  eq: sig(['values'], ['force_strings'], ['values']),
  lt: sig(['values'], ['force_strings'], ['values']),
  gt: sig(['values'], ['force_strings'], ['values']),
  'is-empty': sig(['value'], [], ['value']),
  'in-net': sig(['address', 'subnet'], [], ['address', 'subnet']),
  matches: sig(['value', 'regex'], [], ['value']),
  contains: sig(['value', 'regex'], [], ['value']),
  'one-of': sig(['value'], ['values'], ['value']),
  'is-none': sig(['value'], [], ['value']),
  'is-true': sig(['value'], [], ['value']),
  'is-false': sig(['value'], [], ['value']),
};

export const ACTIONS: Readonly<Record<string, OpSignature>> = {
  fail: sig(['msg']),
  log: sig(['msg'], ['level'], ['msg']),
  'set-attribute': sig(['path', 'value'], [], ['value']),
  'extend-attribute': sig(['path', 'value'], ['unique'], ['value']),
  'del-attribute': sig(['path']),
  'set-capability': sig(['name', 'value'], [], ['value']),
  'unset-capability': sig(['name']),
  'add-trait': sig(['name']),
  'remove-trait': sig(['name']),
  'set-plugin-data': sig(['path', 'value', 'plugin_data'], [], ['value'], true),
  'extend-plugin-data': sig(['path', 'value', 'plugin_data'], ['unique'], ['value'], true),
  'unset-plugin-data': sig(['path', 'plugin_data'], [], [], true),
  'set-port-attribute': sig(['port_id', 'path', 'value'], [], ['value']),
  'extend-port-attribute': sig(['port_id', 'path', 'value'], ['unique'], ['value']),
  'del-port-attribute': sig(['port_id', 'path']),
  'api-call': sig(['url'], ['headers', 'proxies', 'timeout', 'retries', 'backoff_factor'], ['url']),
};

/**
 * An operator as written (`!eq`, ` eq `) → its name and whether it is inverted (Ironic's
 * parse_inverted_operator; more than one `!` is refused).
 */
export function parseInvertedOperator(op: string): { op: string; inverted: boolean } {
  const trimmed = op.trim();
  if ((trimmed.match(/!/g) ?? []).length > 1) {
    throw new InspectionRuleValidationFailure(
      'Multiple exclamation marks are not allowed. To apply the invert of an operation, simply add an exclamation mark ' +
        '(with an optional space) before the operator, e.g. eq - !eq.',
    );
  }
  return { op: trimmed.replace(/^!+/, '').trim(), inverted: trimmed.startsWith('!') };
}

/**
 * An operation's arguments by name. The list form (deprecated in Ironic, still accepted) gives the
 * required arguments in order, then the optional ones; an action on plugin data gets it as the last
 * required argument, which the engine fills in.
 */
export function normalizeArgs(signature: OpSignature, args: unknown): Record<string, unknown> {
  if (!Array.isArray(args)) {
    if (args === null || typeof args !== 'object') throw new InspectionRuleValidationFailure('args must be either a list or dictionary');
    return { ...(args as Record<string, unknown>), ...(signature.pluginData ? { plugin_data: {} } : {}) };
  }
  const given = signature.pluginData ? [...args, {}] : [...args];
  if (given.length < signature.required.length) {
    throw new InspectionRuleValidationFailure(
      `Not enough arguments provided. Missing: ${signature.required.slice(given.length).join(', ')}`,
    );
  }
  const out: Record<string, unknown> = {};
  signature.required.forEach((name, i) => (out[name] = given[i]));
  signature.optional.forEach((name, i) => {
    const value = given[signature.required.length + i];
    if (i + signature.required.length < given.length) out[name] = value;
  });
  return out;
}

/** Ironic's Base.validate: every required argument given, none it does not know. */
export function validateArgs(signature: OpSignature, args: unknown): void {
  const named = normalizeArgs(signature, args);
  const provided = Object.keys(named);
  const missing = signature.required.filter((name) => !provided.includes(name));
  const known = [...signature.required, ...signature.optional];
  const unexpected = provided.filter((name) => !known.includes(name));
  const problems: string[] = [];
  if (missing.length > 0) problems.push(`missing required argument(s): ${missing.join(', ')}`);
  if (unexpected.length > 0) problems.push(`unexpected argument(s): ${unexpected.join(', ')}`);
  if (problems.length > 0) throw new InspectionRuleValidationFailure(problems.join('; '));
}
