/**
 * Checking a rule's conditions (Ironic's OperatorBase.check_condition and check_with_loop, and the
 * engine's check_conditions): arguments named as the operator takes them, interpolated, the check,
 * inverted by a leading `!`. With a `loop`, the condition is checked once per item (`{item}` in its
 * arguments, compared as strings) and `multiple` says which results count: any (the default), all,
 * first (the first true one, else the first result) or last.
 */
import { type FormatContext, interpolate } from './interpolate';
import { OPERATOR_CHECKS } from './operators';
import { OPERATORS, normalizeArgs, parseInvertedOperator } from './signatures';

export interface Condition {
  readonly op: string;
  readonly args: unknown;
  readonly loop?: unknown;
  readonly multiple?: string;
}

/** The data a condition reads: the node, and the inspection data with secrets masked. */
export type ConditionData = Omit<FormatContext, 'item'>;

function checkOnce(condition: Condition, data: ConditionData, item?: { item: unknown }): boolean {
  const { op, inverted } = parseInvertedOperator(condition.op);
  const signature = OPERATORS[op];
  const check = OPERATOR_CHECKS[op];
  if (signature === undefined || check === undefined) {
    throw new Error(`Unsupported operator: '${op}'. Supported operators are: ${Object.keys(OPERATORS).join(', ')}.`);
  }
  const named = normalizeArgs(signature, condition.args ?? {});
  const context: FormatContext = { ...data, ...(item ?? {}) };
  const args = Object.fromEntries(
    Object.entries(named).map(([k, v]) => [k, signature.formatted.includes(k) || item !== undefined ? interpolate(v, context, op) : v]),
  );
  // Interpolation makes strings of numbers: inside a loop the comparison is of strings.
  if (item !== undefined && signature.optional.includes('force_strings')) args.force_strings = true;
  const result = check(args);
  return inverted ? !result : result;
}

const hasLoop = (loop: unknown): boolean =>
  Array.isArray(loop) ? loop.length > 0 : loop !== null && typeof loop === 'object' && Object.keys(loop).length > 0;

export function checkCondition(condition: Condition, data: ConditionData): boolean {
  if (!hasLoop(condition.loop)) return checkOnce(condition, data);
  const multiple = condition.multiple ?? 'any';
  const items = Array.isArray(condition.loop) ? condition.loop : [condition.loop];
  let results: boolean[] = [];
  for (const item of items) {
    const result = checkOnce(condition, data, { item });
    if (!Array.isArray(condition.loop) && (multiple === 'first' || multiple === 'last')) return result;
    results.push(result);
    if (multiple === 'first' && result) return true;
    if (multiple === 'last') results = [result];
  }
  if (multiple === 'any') return results.some(Boolean);
  if (multiple === 'all') return results.every(Boolean);
  return results[0] ?? false;
}

/** Whether every condition of a rule holds (a rule without conditions always applies). */
export function checkConditions(conditions: readonly Condition[] | null | undefined, data: ConditionData): boolean {
  for (const condition of conditions ?? []) if (!checkCondition(condition, data)) return false;
  return true;
}
