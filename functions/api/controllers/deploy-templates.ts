/**
 * `/v1/deploy_templates` (1.55): list, show, create, update, delete (Ironic 21.4's
 * DeployTemplatesController). A template's name is a trait (CUSTOM_… or a standard one) and
 * unique; its steps are validated with Ironic's schema and may not repeat an interface and step.
 */
import { DeployTemplateNotFound, HttpError, InvalidParameterValue, InvalidUuidOrName } from '#common/errors';
import { isOsloUuidLike, newUuid } from '#common/ids';
import { DeployTemplate } from '#objects/deploy-template';
import type { Dict } from '#objects/fields';
import { argUuid, argUuidOrName } from '../args';
import { Arg, NO_QUERY, arg, defineQuery } from '../request';
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
import { DEPLOY_STEP_SCHEMA, TEMPLATE_SCHEMA, checkDuplicateSteps } from '../schemas/deploy-template';
import { PATCH_SCHEMA } from '../schemas/node';
import { validateSchema } from '../validation';
import { TEMPLATE_LIST_FIELDS, deployTemplateView } from '../views/deploy-template';
import { checkFieldVersions } from '../views/node';
import { applyPatchedFields, checkPatchPaths, rejectArgs } from './resource-common';

const SORT: SortSpec = { invalid: ['extra', 'steps'], columns: columns(['uuid', 'name', 'created_at', 'updated_at']) };
const PATCH_ALLOWED_FIELDS = ['extra', 'name', 'steps', 'description'];

/** Below 1.55 the resource does not exist: 404 for GET, 405 for anything else (Ironic's `_route`). */
function gated<P>(
  handler: (req: ApiRequest, ctx: ApiContext, params: P) => Promise<ApiResponse>,
): (req: ApiRequest, ctx: ApiContext, params: P) => Promise<ApiResponse> {
  return (req, ctx, params) => {
    if (!atLeast(req.version, 55)) {
      const message = 'The API version does not allow deploy templates';
      throw req.method === 'GET' || req.method === 'HEAD'
        ? new HttpError(404, 'Not Found', message)
        : new HttpError(405, 'Method Not Allowed', message);
    }
    return handler(req, ctx, params);
  };
}

/** args.uuid_or_name, then the template by UUID or name; ".json" suffix as the router stripped it. */
async function findTemplate(req: ApiRequest, ctx: ApiContext, ident: string): Promise<DeployTemplate> {
  argUuidOrName('template_ident', ident);
  const get = (id: string) => {
    if (isOsloUuidLike(id)) return ctx.stores.deployTemplates.get(id);
    if (isValidLogicalName(id, req.version)) return ctx.stores.deployTemplates.getByName(id);
    throw new InvalidUuidOrName(id);
  };
  try {
    return await get(ident);
  } catch (err) {
    if (!req.jsonSuffix || !(err instanceof DeployTemplateNotFound)) throw err;
    return get(`${ident}.json`);
  }
}

const ListQuery = listQuery(arg.string().map((value) => argName('marker', value)));
/** Show: the ident is checked before `fields`, in the order of Ironic's `args.validate`. */
const ShowQuery = defineQuery({ template_ident: Arg.of(argUuidOrName), fields: arg.stringList() }, { path: ['template_ident'] });

async function listTemplates(req: ApiRequest, ctx: ApiContext): Promise<ApiResponse> {
  const { marker, limit, sort_key: sortKey = 'id', sort_dir: sortDir = 'asc', fields: fieldsArg, detail } = ListQuery.read(req);
  checkFieldVersions(fieldsArg, req.version);
  checkFieldVersions([sortKey], req.version);
  const fields = returnFields(req, fieldsArg, detail, TEMPLATE_LIST_FIELDS);
  const paging = readPaging(ctx, limit, sortKey, sortDir);
  checkInvalidSortKey(sortKey, SORT);
  if (marker) await ctx.stores.deployTemplates.get(marker);
  const page = await ctx.stores.deployTemplates.list({
    limit: paging.limit,
    ...(marker ? { marker } : {}),
    sortKey: sortField(sortKey, SORT),
    sortDir: paging.sortDir,
  });
  const body: Record<string, unknown> = {
    deploy_templates: page.items.map((t) => deployTemplateView(t, { baseUrl: req.baseUrl, fields })),
  };
  const next = collectionNext(req, 'deploy_templates', page.items, paging, detail, fields);
  if (next !== undefined) body.next = next;
  return json(200, body);
}

/** args.name: a logical name (the template list's marker is validated so). */
function argName(name: string, text: string): string {
  if (!isValidLogicalName(text, { major: 1, minor: 99 })) throw new InvalidParameterValue(`Expected name for ${name}: ${text}`);
  return text;
}

async function getTemplate(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  const { fields } = ShowQuery.read(req, { template_ident: params.ident });
  checkFieldVersions(fields, req.version);
  const template = await findTemplate(req, ctx, params.ident);
  return json(200, deployTemplateView(template, { baseUrl: req.baseUrl, fields }));
}

/** TEMPLATE_VALIDATOR: the schema, duplicate steps, then the UUID. */
function validateTemplate(name: string, body: unknown): void {
  validateSchema(name, TEMPLATE_SCHEMA, body);
  const data = body as Record<string, unknown>;
  checkDuplicateSteps(data.steps as Dict[] as { interface: unknown; step: unknown }[]);
  if (data.uuid !== undefined && data.uuid !== null) argUuid('uuid', data.uuid);
}

/** Steps as the object keeps them: priority an integer (the schema also allows digits in a string). */
function toSteps(steps: readonly Dict[]): Dict[] {
  return steps.map((s) => ({ interface: s.interface, step: s.step, args: s.args, priority: Number(s.priority) }));
}

/** Python's json.dumps(value, sort_keys=True) for JSON values (the step key Ironic compares). */
function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}: ${sortedJson((value as Dict)[k])}`).join(', ')}}`;
  }
  return JSON.stringify(value);
}

const stepKey = (s: Dict): string => JSON.stringify([s.interface, s.step, sortedJson(s.args), s.priority]);

function compareSteps(a: Dict, b: Dict): number {
  const ka: unknown[] = [a.interface, a.step, sortedJson(a.args)];
  const kb: unknown[] = [b.interface, b.step, sortedJson(b.args)];
  for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return (ka[i] as string) < (kb[i] as string) ? -1 : 1;
  return (a.priority as number) - (b.priority as number);
}

/**
 * The steps in the order Ironic shows them after an update: its database keeps the steps that did
 * not change (in their order) and appends the new ones, sorted by interface, step, arguments and
 * priority (its `_update_deploy_template_steps`).
 */
function storedOrder(current: readonly Dict[], next: readonly Dict[]): Dict[] {
  const wanted = new Map<string, number>();
  for (const s of next) wanted.set(stepKey(s), (wanted.get(stepKey(s)) ?? 0) + 1);
  const kept: Dict[] = [];
  for (const s of current) {
    const n = wanted.get(stepKey(s)) ?? 0;
    if (n > 0) {
      kept.push(s);
      wanted.set(stepKey(s), n - 1);
    }
  }
  const created: Dict[] = [];
  for (const s of next) {
    const n = wanted.get(stepKey(s)) ?? 0;
    if (n > 0) {
      created.push(s);
      wanted.set(stepKey(s), n - 1);
    }
  }
  return [...kept, ...created.sort(compareSteps)];
}

async function createTemplate(req: ApiRequest, ctx: ApiContext): Promise<ApiResponse> {
  const body = parseBody(req) ?? {};
  rejectArgs(req, body);
  validateTemplate('template', body);
  const data = body as Record<string, unknown>;
  const template = await ctx.stores.deployTemplates.create(
    new DeployTemplate({
      uuid: (data.uuid as string | null | undefined) || newUuid(),
      name: data.name as string,
      steps: toSteps(data.steps as Dict[]),
      extra: (data.extra as Dict | null | undefined) ?? {},
      created_at: new Date().toISOString(),
    }),
  );
  ctx.log.info('Deploy template created', { template: template.uuid, name: template.name });
  // Ironic answers a create with the steps as the request gave them (a priority "20" stays a string).
  const view = deployTemplateView(template, { baseUrl: req.baseUrl });
  (view.steps as Dict[]).forEach((step, i) => (step.priority = ((data.steps as Dict[])[i] as Dict).priority));
  return json(201, view, {
    Location: `${req.baseUrl}/v1/deploy_templates/${template.uuid}`,
  });
}

async function patchTemplate(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  const parsed = parseBody(req);
  rejectArgs(req, parsed);
  argUuidOrName('template_ident', params.ident);
  validateSchema('patch', PATCH_SCHEMA, parsed ?? {});
  const patch = parsed as PatchOperation[];
  checkPatchPaths(patch, PATCH_ALLOWED_FIELDS);
  const template = await findTemplate(req, ctx, params.ident);
  const patched = applyPatch(template.toData() as Record<string, unknown>, patch);
  for (const step of Array.isArray(patched.steps) ? patched.steps : []) {
    if (step !== null && typeof step === 'object' && !Array.isArray(step)) {
      for (const key of Object.keys(step as object)) if (!(key in (DEPLOY_STEP_SCHEMA.properties as object))) delete (step as Dict)[key];
    }
    validateSchema('patch', DEPLOY_STEP_SCHEMA, step);
  }
  for (const key of Object.keys(patched)) if (!(key in (TEMPLATE_SCHEMA.properties as object))) delete patched[key];
  validateTemplate('patch', patched);
  patched.steps = storedOrder(template.steps, toSteps(patched.steps as Dict[]));
  const changed = applyPatchedFields(template, patched, ['uuid', 'name', 'steps', 'extra']);
  const saved = changed.length > 0 ? await ctx.stores.deployTemplates.save(template) : template;
  return json(200, deployTemplateView(saved, { baseUrl: req.baseUrl }));
}

async function deleteTemplate(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  NO_QUERY.read(req);
  const template = await findTemplate(req, ctx, params.ident);
  await ctx.stores.deployTemplates.destroy(template);
  ctx.log.info('Deploy template deleted', { template: template.uuid });
  return noContent();
}

export const DEPLOY_TEMPLATE_ROUTES = [
  route('GET', '/v1/deploy_templates', gated(listTemplates)),
  route('POST', '/v1/deploy_templates', gated(createTemplate)),
  route('GET', '/v1/deploy_templates/:ident', gated(getTemplate)),
  route('PATCH', '/v1/deploy_templates/:ident', gated(patchTemplate)),
  route('DELETE', '/v1/deploy_templates/:ident', gated(deleteTemplate)),
];
