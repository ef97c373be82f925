/** Errors of inspection rules, with Ironic's messages (`ironic/common/exception.py`). */
import { Conflict, Invalid, NotFound } from '../error-base';
import { HardwareInspectionFailure } from '../errors';

export class InspectionRuleNotFound extends NotFound {
  constructor(rule: string) {
    super(`Rule ${rule} could not be found.`);
  }
}

export class InspectionRuleAlreadyExists extends Conflict {
  constructor(uuid: string) {
    super(`A rule with UUID ${uuid} already exists.`);
  }
}

/**
 * A rule's conditions or actions name arguments their operator does not take, or miss some. Ironic
 * raises this as a plain IronicException (a 500) with the bare reason; Ironless answers 400 with
 * the same words: it is the request that is wrong.
 */
export class InspectionRuleValidationFailure extends Invalid {}

/** A rule failed while it ran (Ironic's InspectionRuleExecutionFailure): the inspection fails. */
export class InspectionRuleExecutionFailure extends HardwareInspectionFailure {
  constructor(reason: string, prefix = 'Inspection rule execution failed') {
    super(reason);
    this.message = `${prefix}. Reason: ${reason}`;
  }
}

/** An action failed (Ironic's RuleActionExecutionFailure). */
export class RuleActionExecutionFailure extends InspectionRuleExecutionFailure {
  constructor(reason: string) {
    super(reason, 'Inspection rule action execution failed');
  }
}

/** A condition could not be checked (Ironic's RuleConditionCheckFailure). */
export class RuleConditionCheckFailure extends InspectionRuleExecutionFailure {
  constructor(reason: string) {
    super(reason, 'Inspection rule condition check failed');
  }
}

/** Anything else a rule ran into (Ironic wraps it in a bare IronicException). */
export class InspectionRuleFailed extends Error {}
