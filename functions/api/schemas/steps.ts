/**
 * The step lists of a provision request, as Ironic declares them (api/controllers/v1/node.py):
 * _CLEAN_STEPS_SCHEMA and _DEPLOY_STEPS_SCHEMA, and for servicing (2023.2) its _STEPS_SCHEMA.
 * A step list that does not fit is refused with jsonschema's whole error, which prints the
 * failing part of the schema, so these are Ironic's schemas word for word, descriptions included.
 */
import type { JsonSchema } from '../validation';
import { DEPLOY_STEP_SCHEMA } from './deploy-template';
import { STEP_INTERFACES } from './step-interfaces';

function stepsSchema(title: string, interfaces: readonly string[]): JsonSchema {
  return {
    title,
    type: 'array',
    items: {
      type: 'object',
      required: ['interface', 'step'],
      properties: {
        interface: { description: 'driver interface', enum: [...interfaces] },
        // 2023.2 kept the clean steps' wording for the service steps too.
        step: { description: 'name of clean step', type: 'string', minLength: 1 },
        args: { description: 'additional args', type: 'object', properties: {} },
      },
      additionalProperties: false,
    },
  };
}

export const CLEAN_STEPS_SCHEMA = stepsSchema('Clean steps schema', STEP_INTERFACES);

/**
 * Ironic 2023.2's servicing. Its child-node keys (execute_on_child_nodes,
 * limit_child_node_execution) are not taken: Ironless does not run steps on child nodes.
 */
export const SERVICE_STEPS_SCHEMA = stepsSchema('Steps schema', STEP_INTERFACES);

export const DEPLOY_STEPS_SCHEMA: JsonSchema = { title: 'Deploy steps schema', type: 'array', items: DEPLOY_STEP_SCHEMA };
