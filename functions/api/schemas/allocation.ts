/** The body of `POST /v1/allocations` (Ironic's ALLOCATION_SCHEMA); PATCH results are checked with it too. */
import type { JsonSchema } from '../validation';
import { TRAIT_SCHEMA } from './node';

export const ALLOCATION_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    candidate_nodes: { type: ['array', 'null'], items: { type: 'string' } },
    extra: { type: ['object', 'null'] },
    name: { type: ['string', 'null'] },
    node: { type: ['string', 'null'] },
    owner: { type: ['string', 'null'] },
    resource_class: { type: ['string', 'null'], maxLength: 80 },
    traits: { type: ['array', 'null'], items: TRAIT_SCHEMA },
    uuid: { type: ['string', 'null'] },
  },
  additionalProperties: false,
};
