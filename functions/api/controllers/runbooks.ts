/**
 * `/v1/runbooks` (1.92): list, show, create, update, delete (Ironic master's RunbooksController).
 * A runbook is a named, unique list of steps that a manual clean or a service may run instead of
 * steps given in the request. Below 1.112 its name is a trait (the node must carry it); from 1.112
 * the name is free and its `traits` (`/v1/runbooks/{runbook}/traits`) say which nodes may run it.
 *
 * Every Ironless caller is Ironic's system-scoped admin (noauth or http_basic carry no project), so
 * the project-scoped rules of Ironic's policy (an owner of one's own project only, no public
 * runbook from a project admin) never apply; `owner` and `public` are kept and shown as given.
 */
import { HttpError, InvalidParameterValue, PatchError } from '#common/errors';
import { newUuid } from '#common/ids';
import { pyRepr } from '#common/pyrepr';
import type { Dict } from '#objects/fields';
import { Runbook } from '#objects/runbook';
import { argUuid, argUuidOrName } from '../args';
import { parseBody } from '../body';
import type { ApiContext } from '../context';
import { type ApiRequest, type ApiResponse, json, noContent } from '../http';
import { atLeast } from '../microversion';
import { isValidLogicalName } from '../names';
import { type PatchOperation, applyPatch } from '../patch';
import {
  type SortSpec,
  checkInvalidSortKey,
  collectionNext,
  columns,
  listQuery,
  readPaging,
  returnFields,
  sortField,
} from '../resource-list';
import { route } from '../route';
import { checkDuplicateSteps } from '../schemas/deploy-template';
import { PATCH_SCHEMA } from '../schemas/node';
import { RUNBOOK_MUTATION_SCHEMA, RUNBOOK_SCHEMA, RUNBOOK_STEP_SCHEMA } from '../schemas/runbook';
import { type JsonSchema, validateSchema } from '../validation';
import { checkFieldVersions } from '../views/node';
import { findRunbook } from '../runbook-use';
import { RUNBOOK_LIST_FIELDS, allowRunbookTraits, runbookView } from '../views/runbook';
import { applyPatchedFields, checkPatchPaths, patchValues, rejectArgs } from './resource-common';
import { Arg, NO_QUERY, arg, defineQuery } from '../request';

const SORT: SortSpec = {
  invalid: ['extra', 'steps', 'traits'],
  columns: columns(['uuid', 'name', 'description', 'public', 'owner', 'disable_ramdisk', 'created_at', 'updated_at']),
};
const PATCH_ALLOWED_FIELDS = ['disable_ramdisk', 'extra', 'name', 'owner', 'public', 'steps'];
/** The fields a PATCH may change (traits only through their sub-resource). */
const MUTABLE_FIELDS = ['uuid', 'name', 'description', 'steps', 'disable_ramdisk', 'extra', 'public', 'owner'];

/** Below 1.92 the resource does not exist: 404 for GET, 405 for anything else (Ironic's `_route`). */
export function gated<P>(
  handler: (req: ApiRequest, ctx: ApiContext, params: P) => Promise<ApiResponse>,
): (req: ApiRequest, ctx: ApiContext, params: P) => Promise<ApiResponse> {
  return (req, ctx, params) => {
    if (!atLeast(req.version, 92)) {
      const message = 'The API version does not allow runbooks';
      throw req.method === 'GET' || req.method === 'HEAD'
        ? new HttpError(404, 'Not Found', message)
        : new HttpError(405, 'Method Not Allowed', message);
    }
    return handler(req, ctx, params);
  };
}

/** args.name: a logical name (the resource exists from 1.92, where names are RFC 3986's unreserved characters). */
function argName(name: string, text: string): string {
  if (!isValidLogicalName(text, { major: 1, minor: 92 })) throw new InvalidParameterValue(`Expected name for ${name}: ${text}`);
  return text;
}

const ListQuery = listQuery(
  arg.string().map((value) => argName('marker', value)),
  { project: arg.boolean() },
);
/** Show: the ident is checked before `fields`, in the order of Ironic's `args.validate`. */
const ShowQuery = defineQuery({ runbook_ident: Arg.of(argUuidOrName), fields: arg.stringList() }, { path: ['runbook_ident'] });

async function listRunbooks(req: ApiRequest, ctx: ApiContext): Promise<ApiResponse> {
  const { marker, limit, sort_key: sortKey = 'id', sort_dir: sortDir = 'asc', fields: fieldsArg, detail, project } = ListQuery.read(req);
  checkFieldVersions(fieldsArg, req.version);
  checkFieldVersions([sortKey], req.version);
  const fields = returnFields(req, fieldsArg, detail, RUNBOOK_LIST_FIELDS);
  const paging = readPaging(ctx, limit, sortKey, sortDir);
  checkInvalidSortKey(sortKey, SORT);
  if (marker) await ctx.stores.runbooks.get(marker);
  const page = await ctx.stores.runbooks.list(
    { limit: paging.limit, ...(marker ? { marker } : {}), sortKey: sortField(sortKey, SORT), sortDir: paging.sortDir },
    { publicOnly: project === true },
  );
  const body: Record<string, unknown> = {
    runbooks: page.items.map((r) => runbookView(r, { baseUrl: req.baseUrl, version: req.version, fields })),
  };
  const next = collectionNext(req, 'runbooks', page.items, paging, detail, fields);
  if (next !== undefined) body.next = next;
  return json(200, body);
}

async function getRunbook(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  const { fields } = ShowQuery.read(req, { runbook_ident: params.ident });
  const runbook = await findRunbook(req, ctx, params.ident);
  checkFieldVersions(fields, req.version);
  return json(200, runbookView(runbook, { baseUrl: req.baseUrl, version: req.version, fields }));
}

/** The schema, duplicate steps, then the UUID (Ironic's runbook validator). */
function validateRunbook(name: string, schema: JsonSchema, body: unknown): void {
  validateSchema(name, schema, body);
  const data = body as Record<string, unknown>;
  checkDuplicateSteps(data.steps as { interface: unknown; step: unknown }[], 'A template');
  if (data.uuid !== undefined && data.uuid !== null) argUuid('uuid', data.uuid);
}

/** Steps as the runbook keeps them: args an object ({} when left out), order an integer. */
function toSteps(steps: readonly Dict[]): Dict[] {
  return steps.map((s) => ({ interface: s.interface, step: s.step, args: s.args ?? {}, order: Number(s.order) }));
}

async function createRunbook(req: ApiRequest, ctx: ApiContext): Promise<ApiResponse> {
  const body = parseBody(req) ?? {};
  rejectArgs(req, body);
  validateRunbook('runbook', allowRunbookTraits(req.version) ? RUNBOOK_MUTATION_SCHEMA : RUNBOOK_SCHEMA, body);
  const data = body as Record<string, unknown>;
  const runbook = await ctx.stores.runbooks.create(
    new Runbook({
      uuid: (data.uuid as string | null | undefined) || newUuid(),
      name: data.name as string,
      description: (data.description as string | null | undefined) ?? null,
      steps: toSteps(data.steps as Dict[]),
      disable_ramdisk: (data.disable_ramdisk as boolean | null | undefined) ?? false,
      extra: (data.extra as Dict | null | undefined) ?? {},
      public: (data.public as boolean | null | undefined) ?? false,
      owner: (data.owner as string | null | undefined) ?? null,
      traits: [],
      created_at: new Date().toISOString(),
    }),
  );
  ctx.log.info('Runbook created', { runbook: runbook.uuid, name: runbook.name });
  return json(201, runbookView(runbook, { baseUrl: req.baseUrl, version: req.version }), {
    Location: `${req.baseUrl}/v1/runbooks/${runbook.uuid}`,
  });
}

/**
 * Ironic's owner/public rule: a public runbook has no owner. Setting an owner is refused unless
 * the same patch makes (or the runbook already is) non-public; making it public or not clears the
 * owner before the patch applies.
 */
function checkOwnerAndPublic(runbook: Runbook, patch: readonly PatchOperation[], data: Record<string, unknown>): void {
  const owner = patchValues(patch, '/owner');
  const pub = patchValues(patch, '/public');
  if (owner.length > 0 && ((runbook.public && pub.length === 0) || pub[0] === true)) {
    throw new PatchError(pyRepr(patch), 'There cannot be an owner for a public runbook');
  }
  if (pub.length > 0) data.owner = null;
}

async function patchRunbook(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  const parsed = parseBody(req);
  rejectArgs(req, parsed);
  const ident = params.ident;
  argUuidOrName('runbook_ident', ident);
  validateSchema('patch', PATCH_SCHEMA, parsed ?? {});
  const patch = parsed as PatchOperation[];
  checkPatchPaths(patch, allowRunbookTraits(req.version) ? [...PATCH_ALLOWED_FIELDS, 'description'] : PATCH_ALLOWED_FIELDS);
  const runbook = await findRunbook(req, ctx, ident);
  const data = runbook.toData() as Record<string, unknown>;
  checkOwnerAndPublic(runbook, patch, data);
  const patched = applyPatch(data, patch);
  // Ironic validates each step, then the whole runbook, with only the schema's keys.
  for (const step of Array.isArray(patched.steps) ? patched.steps : []) {
    if (step !== null && typeof step === 'object' && !Array.isArray(step)) {
      for (const key of Object.keys(step as object)) if (!(key in (RUNBOOK_STEP_SCHEMA.properties as object))) delete (step as Dict)[key];
    }
    validateSchema('patch', RUNBOOK_STEP_SCHEMA, step);
  }
  for (const key of Object.keys(patched)) if (!(key in (RUNBOOK_MUTATION_SCHEMA.properties as object))) delete patched[key];
  validateRunbook('patch', RUNBOOK_MUTATION_SCHEMA, patched);
  patched.steps = toSteps(patched.steps as Dict[]);
  patched.extra ??= {};
  patched.public ??= false;
  patched.disable_ramdisk ??= false;
  const changed = applyPatchedFields(runbook, patched, MUTABLE_FIELDS);
  const saved = changed.length > 0 ? await ctx.stores.runbooks.save(runbook) : runbook;
  return json(200, runbookView(saved, { baseUrl: req.baseUrl, version: req.version }));
}

async function deleteRunbook(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  NO_QUERY.read(req);
  const runbook = await findRunbook(req, ctx, params.ident);
  await ctx.stores.runbooks.destroy(runbook);
  ctx.log.info('Runbook deleted', { runbook: runbook.uuid });
  return noContent();
}

export const RUNBOOK_ROUTES = [
  route('GET', '/v1/runbooks', gated(listRunbooks)),
  route('POST', '/v1/runbooks', gated(createRunbook)),
  route('GET', '/v1/runbooks/:ident', gated(getRunbook)),
  route('PATCH', '/v1/runbooks/:ident', gated(patchRunbook)),
  route('DELETE', '/v1/runbooks/:ident', gated(deleteRunbook)),
];
