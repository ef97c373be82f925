/**
 * Ironic's JSON schema of an inspection rule (`ironic/api/schemas/v1/inspection_rule.py`
 * create_request_body): the body of a create, and what a patched rule must still match.
 * Operators may be inverted with a leading `!`; conditions and actions may carry other keys.
 */
import { ACTIONS, OPERATORS } from '#common/inspection-rules/signatures';
import type { JsonSchema } from '../validation';

const OPERATOR_NAMES = Object.keys(OPERATORS);

export const INSPECTION_RULE_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    actions: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['op', 'args'],
        properties: {
          op: { enum: Object.keys(ACTIONS) },
          args: { type: ['array', 'object'] },
          loop: { type: ['array', 'object'] },
        },
        additionalProperties: true,
      },
    },
    conditions: {
      type: 'array',
      minItems: 0,
      items: {
        type: 'object',
        required: ['op', 'args'],
        properties: {
          op: { enum: [...OPERATOR_NAMES, ...OPERATOR_NAMES.map((op) => `!${op}`)] },
          args: { type: ['array', 'object'] },
          multiple: { enum: ['any', 'all', 'first', 'last'] },
          loop: { type: ['array', 'object'] },
        },
        additionalProperties: true,
      },
    },
    description: { type: ['string', 'null'], maxLength: 255 },
    phase: { type: ['string', 'null'], maxLength: 16 },
    priority: { type: 'integer', minimum: 0 },
    sensitive: { type: ['boolean', 'null'] },
    uuid: { type: ['string', 'null'] },
  },
  required: ['actions'],
  additionalProperties: false,
};

/** A JSON patch of a rule (Ironic's update_request_body). */
export const INSPECTION_RULE_PATCH_SCHEMA: JsonSchema = {
  type: 'array',
  items: {
    type: 'object',
    properties: {
      op: { enum: ['add', 'replace', 'remove'] },
      path: { type: 'string' },
      value: {},
    },
    required: ['op', 'path'],
    additionalProperties: false,
  },
};
