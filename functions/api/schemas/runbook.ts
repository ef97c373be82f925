/**
 * JSON schemas of runbook requests as Ironic master declares them (api/controllers/v1/runbook.py
 * and utils.py RUNBOOK_STEP_SCHEMA): below 1.112 a runbook's name is a trait; from 1.112 any name
 * of URL-safe characters, with a `description`, and its traits only through
 * `/v1/runbooks/{runbook}/traits`. (Duplicate steps: deploy-template.ts checkDuplicateSteps.)
 */
import { type JsonSchema } from '../validation';
import { TRAIT_SCHEMA } from './node';
import { STEP_INTERFACES } from './step-interfaces';

/** A step: the interfaces clean and service steps may name; `order` a non-negative integer. */
export const RUNBOOK_STEP_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    args: { type: 'object' },
    interface: { type: 'string', enum: [...STEP_INTERFACES] },
    step: { type: 'string', minLength: 1 },
    order: {
      anyOf: [
        { type: 'integer', minimum: 0 },
        { type: 'string', minLength: 1, pattern: '^[0-9]+$' },
      ],
    },
  },
  required: ['interface', 'step', 'order'],
  additionalProperties: false,
};

/** A name from 1.112: RFC 3986's unreserved characters, so that it can stand in a URL path. */
export const RUNBOOK_NAME_SCHEMA: JsonSchema = { type: 'string', minLength: 1, maxLength: 255, pattern: '^[A-Za-z0-9\\-._~]+$' };

const BASE_PROPERTIES = {
  uuid: { type: ['string', 'null'] },
  steps: { type: 'array', items: RUNBOOK_STEP_SCHEMA, minItems: 1 },
  disable_ramdisk: { type: ['boolean', 'null'] },
  extra: { type: ['object', 'null'] },
  public: { type: ['boolean', 'null'] },
  owner: { type: ['string', 'null'], maxLength: 255 },
};

/** A create request below 1.112: the name is a trait. */
export const RUNBOOK_SCHEMA: JsonSchema = {
  type: 'object',
  properties: { ...BASE_PROPERTIES, name: TRAIT_SCHEMA },
  required: ['steps', 'name'],
  additionalProperties: false,
};

/**
 * A create request from 1.112, and every PATCH result (so a runbook named at 1.112 stays
 * patchable at older versions; `description` is refused there before the schema is applied).
 */
export const RUNBOOK_MUTATION_SCHEMA: JsonSchema = {
  type: 'object',
  properties: { ...BASE_PROPERTIES, name: RUNBOOK_NAME_SCHEMA, description: { type: ['string', 'null'], maxLength: 255 } },
  required: ['steps', 'name'],
  additionalProperties: false,
};

/** The body of `PUT /v1/runbooks/{runbook}/traits`. */
export const RUNBOOK_TRAITS_BODY_SCHEMA: JsonSchema = {
  type: 'object',
  properties: { traits: { type: 'array', items: TRAIT_SCHEMA } },
  additionalProperties: false,
};
