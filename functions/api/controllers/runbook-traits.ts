/**
 * `/v1/runbooks/{runbook}/traits` (1.112; Ironic master's RunbookTraitsController): list, replace
 * all, add one, remove one or all. A node may run a runbook when it carries one of these traits.
 * Traits are validated as a node's are; they live on the runbook item, sorted and unique, so each
 * change is one conditional write of the runbook.
 */
import { HttpError, Invalid } from '#common/errors';
import type { Runbook } from '#objects/runbook';
import { rejectArgs } from './resource-common';
import { parseBody } from '../body';
import type { ApiContext } from '../context';
import { type ApiRequest, type ApiResponse, json, noContent } from '../http';
import { pyTruthy } from '../pyrepr';
import { route } from '../route';
import { findRunbook } from '../runbook-use';
import { TRAIT_SCHEMA } from '../schemas/node';
import { RUNBOOK_TRAITS_BODY_SCHEMA } from '../schemas/runbook';
import { validateSchema } from '../validation';
import { allowRunbookTraits } from '../views/runbook';
import { gated } from './runbooks';
import { NO_QUERY, defineArgs } from '../request';

const EITHER_ONE =
  'A single runbook trait may be added via PUT /v1/runbooks/<runbook identifier>/traits/<trait> with no body, or all runbook traits may be replaced via PUT /v1/runbooks/<runbook identifier>/traits with the list of traits specified in the request body.';

/** Below 1.112 the sub-resource does not exist, whatever the method (Ironic's `_lookup`). */
function traitsGated<P>(
  handler: (req: ApiRequest, ctx: ApiContext, params: P) => Promise<ApiResponse>,
): (req: ApiRequest, ctx: ApiContext, params: P) => Promise<ApiResponse> {
  return gated((req, ctx, params: P) => {
    if (!allowRunbookTraits(req.version)) throw new HttpError(404, 'Not Found', 'The API version does not allow runbook traits');
    return handler(req, ctx, params);
  });
}

/** DELETE takes no argument: query parameters and a JSON object body's keys are unexpected. */
const DeleteArgs = defineArgs({});

async function saveTraits(ctx: ApiContext, runbook: Runbook, traits: Iterable<string>): Promise<void> {
  runbook.traits = [...new Set(traits)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  await ctx.stores.runbooks.save(runbook);
}

async function getTraits(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  NO_QUERY.read(req);
  const runbook = await findRunbook(req, ctx, params.ident);
  return json(200, { traits: runbook.traits });
}

async function putTraits(req: ApiRequest, ctx: ApiContext, ident: string, trait: string | undefined): Promise<ApiResponse> {
  const parsed = parseBody(req);
  rejectArgs(req, parsed);
  if (trait) validateSchema('trait', TRAIT_SCHEMA, trait);
  const body = parsed ?? {};
  validateSchema('body', RUNBOOK_TRAITS_BODY_SCHEMA, body);
  const runbook = await findRunbook(req, ctx, ident);
  const traits = (body as { traits?: string[] }).traits;
  if (Boolean(trait) === (traits !== undefined)) throw new Invalid(EITHER_ONE);
  if (trait) {
    if (parsed !== undefined && parsed !== null && pyTruthy(parsed)) throw new Invalid('No body should be provided when adding a trait');
    if (!runbook.traits.includes(trait)) await saveTraits(ctx, runbook, [...runbook.traits, trait]);
    return { status: 204, headers: { Location: `${req.baseUrl}/v1/runbooks/${ident}/traits/${trait}` } };
  }
  await saveTraits(ctx, runbook, traits ?? []);
  return noContent();
}

/** One trait, or all; a trait the runbook does not have is no error (Ironic's no-op). */
async function deleteTraits(req: ApiRequest, ctx: ApiContext, ident: string, trait: string | undefined): Promise<ApiResponse> {
  DeleteArgs.read(req);
  const runbook = await findRunbook(req, ctx, ident);
  const next = trait ? runbook.traits.filter((t) => t !== trait) : [];
  if (next.length !== runbook.traits.length) await saveTraits(ctx, runbook, next);
  return noContent();
}

type Ident = { ident: string };
type IdentTrait = { ident: string; trait: string };

export const RUNBOOK_TRAIT_ROUTES = [
  route('GET', '/v1/runbooks/:ident/traits', traitsGated(getTraits)),
  route(
    'PUT',
    '/v1/runbooks/:ident/traits',
    traitsGated((req, ctx, p: Ident) => putTraits(req, ctx, p.ident, undefined)),
  ),
  route(
    'PUT',
    '/v1/runbooks/:ident/traits/:trait',
    traitsGated((req, ctx, p: IdentTrait) => putTraits(req, ctx, p.ident, p.trait)),
  ),
  route(
    'DELETE',
    '/v1/runbooks/:ident/traits',
    traitsGated((req, ctx, p: Ident) => deleteTraits(req, ctx, p.ident, undefined)),
  ),
  route(
    'DELETE',
    '/v1/runbooks/:ident/traits/:trait',
    traitsGated((req, ctx, p: IdentTrait) => deleteTraits(req, ctx, p.ident, p.trait)),
  ),
];
