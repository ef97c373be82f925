/**
 * JSON schemas of chassis and deploy template requests, as Ironic declares them
 * (api/controllers/v1/chassis.py CHASSIS_SCHEMA, deploy_template.py TEMPLATE_SCHEMA, utils.py
 * DEPLOY_STEP_SCHEMA; the step interfaces are master's), and the template's duplicate-step check.
 */
import { Invalid } from '#common/errors';
import { type JsonSchema } from '../validation';
import { TRAIT_SCHEMA } from './node';
import { STEP_INTERFACES } from './step-interfaces';

export const CHASSIS_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    uuid: { type: ['string', 'null'] },
    extra: { type: ['object', 'null'] },
    description: { type: ['string', 'null'], maxLength: 255 },
  },
  additionalProperties: false,
};

export const DEPLOY_STEP_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    args: { type: 'object' },
    interface: { type: 'string', enum: [...STEP_INTERFACES] },
    priority: {
      anyOf: [
        { type: 'integer', minimum: 0 },
        { type: 'string', minLength: 1, pattern: '^[0-9]+$' },
      ],
    },
    step: { type: 'string', minLength: 1 },
  },
  required: ['interface', 'step', 'args', 'priority'],
  additionalProperties: false,
};

export const TEMPLATE_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    description: { type: ['string', 'null'], maxLength: 255 },
    extra: { type: ['object', 'null'] },
    name: TRAIT_SCHEMA,
    steps: { type: 'array', items: DEPLOY_STEP_SCHEMA, minItems: 1 },
    uuid: { type: ['string', 'null'] },
  },
  required: ['steps', 'name'],
  additionalProperties: false,
};

/**
 * A template may not hold two steps with the same interface and step (Ironic's duplicate_steps).
 * `subject` is how the message names it: 21.4 says "A deploy template", master (runbooks) "A template".
 */
export function checkDuplicateSteps(steps: readonly { interface: unknown; step: unknown }[], subject = 'A deploy template'): void {
  const counts = new Map<string, number>();
  for (const s of steps) {
    const key = `interface: ${String(s.interface)}, step: ${String(s.step)}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const duplicates = [...counts].filter(([, n]) => n > 1).map(([key]) => key);
  if (duplicates.length > 0) {
    throw new Invalid(
      `Deploy template invalid: Duplicate deploy steps. ${subject} cannot have multiple deploy steps with the same interface and step. Duplicates: ${duplicates.join('; ')}.`,
    );
  }
}
