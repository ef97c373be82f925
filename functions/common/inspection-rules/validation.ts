/**
 * What Ironic checks of a rule beyond its JSON schema (`inspection_rules/validation.py`
 * validate_rule): the phase, the priority range of user rules, and each condition's and action's
 * arguments against its operator's. A problem with arguments is raised at once (as Ironic's
 * plugin validation does); phase and priority problems are reported together after.
 */
import { Invalid } from '../error-base';
import { pyStr } from '../pyrepr';
import { InspectionRuleValidationFailure } from './errors';
import { ACTIONS, OPERATORS, parseInvertedOperator, validateArgs } from './signatures';

/** The inspection phases rules can run in (Ironic's InspectionPhase). */
export const INSPECTION_PHASES = ['main'] as const;

interface RuleInput {
  readonly phase?: unknown;
  readonly priority?: unknown;
  readonly conditions?: unknown;
  readonly actions?: unknown;
}

type Operation = { op: string; args: unknown };

export function validateRule(rule: RuleInput): void {
  const errors: string[] = [];
  const phase = 'phase' in rule && rule.phase !== undefined ? rule.phase : 'main';
  if (!(INSPECTION_PHASES as readonly unknown[]).includes(phase)) {
    errors.push(`Invalid phase: ${pyStr(phase)}. Valid phases are: ${INSPECTION_PHASES.join(', ')}`);
  }
  const priority = typeof rule.priority === 'number' ? rule.priority : 0;
  if (priority < 0) errors.push('Priority cannot be negative for user-defined rules.');
  if (priority > 9999) errors.push('Priority must be between 0 and 9999 for user-defined rules.');

  for (const condition of (Array.isArray(rule.conditions) ? rule.conditions : []) as Operation[]) {
    const { op } = parseInvertedOperator(condition.op);
    const signature = OPERATORS[op];
    if (signature === undefined) throw new InspectionRuleValidationFailure(`Unsupported operator '${op}'.`);
    validateArgs(signature, condition.args ?? {});
  }
  for (const action of (Array.isArray(rule.actions) ? rule.actions : []) as Operation[]) {
    const signature = ACTIONS[action.op];
    if (signature === undefined) throw new InspectionRuleValidationFailure(`Unsupported action '${action.op}'.`);
    validateArgs(signature, action.args ?? {});
  }
  if (errors.length === 1) throw new Invalid(errors[0]);
  if (errors.length > 1) throw new Invalid(`Multiple validation errors occurred: ${errors.join('; ')}`);
}
