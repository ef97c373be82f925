/**
 * `/v1/nodes/{node}/traits` (1.37; Ironic's NodeTraitsController): list, replace all, add one,
 * remove one or all. Traits are validated as Ironic validates them (a standard os-traits name or
 * CUSTOM_[A-Z0-9_]+, at most 255 characters) and a node has at most 50. Traits live on the node
 * item, kept sorted and unique; each change is one conditional write (409 when the node is
 * locked or changed meanwhile).
 */
import { ClientSideError, Invalid, httpErrors, InvalidParameterValue, NodeLocked, NodeTraitNotFound, NotAcceptable } from '#common/errors';
import type { Node } from '#objects/node';
import { rejectArgs } from './resource-common';
import { parseBody } from '../body';
import type { ApiContext } from '../context';
import { type ApiRequest, type ApiResponse, json, noContent } from '../http';
import { findNode, isLocked } from '../lookup';
import { atLeast } from '../microversion';
import { route } from '../route';
import { TRAITS_BODY_SCHEMA, TRAIT_SCHEMA } from '../schemas/node';
import { validateSchema } from '../validation';
import { pyTruthy } from '../pyrepr';
import { NO_QUERY, defineArgs } from '../request';

/** Ironic's limit of traits per node. */
export const MAX_TRAITS_PER_NODE = 50;

const EITHER_ONE =
  'A single node trait may be added via PUT /v1/nodes/<node identifier>/traits/<trait> with no body, or all node traits may be replaced via PUT /v1/nodes/<node identifier>/traits with the list of traits specified in the request body.';

/** DELETE takes no argument: query parameters and a JSON object body's keys are unexpected. */
const DeleteArgs = defineArgs({});

async function saveTraits(ctx: ApiContext, node: Node, traits: Iterable<string>): Promise<void> {
  if (isLocked(node)) throw new NodeLocked(node.uuid, node.reservation as string);
  node.traits = [...new Set(traits)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  await ctx.nodes.save(node);
}

function tooMany(node: Node, count: number): InvalidParameterValue {
  return new InvalidParameterValue(
    `Could not modify traits for node ${node.uuid} as it would exceed the maximum number of traits per node (${count} vs. ${MAX_TRAITS_PER_NODE})`,
  );
}

export async function getTraits(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  NO_QUERY.read(req);
  const node = await findNode(req, ctx, params.ident, !atLeast(req.version, 37));
  // Before 1.37 Ironic reads ".../traits" as the node with fields=traits, which that version refuses.
  if (!atLeast(req.version, 37)) throw new NotAcceptable('Request not acceptable.');
  return json(200, { traits: node.traits });
}

async function putTraits(req: ApiRequest, ctx: ApiContext, ident: string, trait: string | undefined): Promise<ApiResponse> {
  const parsed = parseBody(req);
  rejectArgs(req, parsed);
  if (trait) validateSchema('trait', TRAIT_SCHEMA, trait);
  const body = parsed ?? {};
  validateSchema('body', TRAITS_BODY_SCHEMA, body);
  const node = await findNode(req, ctx, ident);
  const traits = (body as { traits?: string[] }).traits;
  if ((trait && traits !== undefined) || !(trait || traits !== undefined)) throw new Invalid(EITHER_ONE);
  if (trait) {
    if (parsed !== undefined && parsed !== null && pyTruthy(parsed)) throw new Invalid('No body should be provided when adding a trait');
    const next = new Set([...node.traits, trait]);
    if (!node.traits.includes(trait) && next.size > MAX_TRAITS_PER_NODE) throw tooMany(node, next.size);
    await saveTraits(ctx, node, next);
    return { status: 204, headers: { Location: `${req.baseUrl}/v1/nodes/${ident}/traits/${trait}` } };
  }
  const next = new Set(traits);
  if (next.size > MAX_TRAITS_PER_NODE) throw tooMany(node, next.size);
  await saveTraits(ctx, node, next);
  return noContent();
}

async function deleteTraits(req: ApiRequest, ctx: ApiContext, ident: string, trait: string | undefined): Promise<ApiResponse> {
  DeleteArgs.read(req);
  const node = await findNode(req, ctx, ident);
  if (trait) {
    if (!node.traits.includes(trait)) throw new NodeTraitNotFound(node.uuid, trait);
    await saveTraits(
      ctx,
      node,
      node.traits.filter((t) => t !== trait),
    );
  } else {
    await saveTraits(ctx, node, []);
  }
  return noContent();
}

/** Before 1.37 these paths mean something else to Ironic: PUT is 405, DELETE an unknown resource. */
function olderThanTraits(req: ApiRequest): void {
  if (atLeast(req.version, 37)) return;
  if (req.method === 'PUT') throw httpErrors.methodNotAllowed('', ['DELETE', 'GET', 'PATCH', 'POST']);
  throw new ClientSideError('Resource could not be found.', 404);
}

export const NODE_TRAIT_ROUTES = [
  route('GET', '/v1/nodes/:ident/traits', getTraits),
  route('PUT', '/v1/nodes/:ident/traits', async (req: ApiRequest, ctx: ApiContext, p: { ident: string }) => {
    olderThanTraits(req);
    return putTraits(req, ctx, p.ident, undefined);
  }),
  route('PUT', '/v1/nodes/:ident/traits/:trait', async (req: ApiRequest, ctx: ApiContext, p: { ident: string; trait: string }) => {
    olderThanTraits(req);
    return putTraits(req, ctx, p.ident, p.trait);
  }),
  route('DELETE', '/v1/nodes/:ident/traits', async (req: ApiRequest, ctx: ApiContext, p: { ident: string }) => {
    olderThanTraits(req);
    return deleteTraits(req, ctx, p.ident, undefined);
  }),
  route('DELETE', '/v1/nodes/:ident/traits/:trait', async (req: ApiRequest, ctx: ApiContext, p: { ident: string; trait: string }) => {
    olderThanTraits(req);
    return deleteTraits(req, ctx, p.ident, p.trait);
  }),
];
