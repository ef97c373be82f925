/**
 * `/v1/inspection_rules` (1.96): list, show, create, update, delete one, delete all (Ironic's
 * InspectionRuleController and its api-ref). A rule is validated with Ironic's JSON schema, then as
 * its validate_rule does (phase, priority, each operator's and action's arguments); a `sensitive`
 * rule never shows its conditions and actions, and cannot be made non-sensitive again.
 */
import { HttpError, InvalidParameterValue, PatchError } from '#common/errors';
import { isOsloUuidLike, newUuid } from '#common/ids';
import { validateRule } from '#common/inspection-rules/validation';
import { pyRepr } from '#common/pyrepr';
import type { Dict } from '#objects/fields';
import { InspectionRule } from '#objects/inspection-rule';
import { argUuid } from '../args';
import { parseBody } from '../body';
import type { ApiContext } from '../context';
import { type ApiRequest, type ApiResponse, json, noContent } from '../http';
import { atLeast } from '../microversion';
import { type PatchOperation, applyPatch } from '../patch';
import { type SortSpec, collectionNext, columns, readPaging, returnFields, sortField } from '../resource-list';
import { route } from '../route';
import { INSPECTION_RULE_PATCH_SCHEMA, INSPECTION_RULE_SCHEMA } from '../schemas/inspection-rule';
import { PATCH_SCHEMA } from '../schemas/node';
import { validateRequestSchema, validateSchema } from '../validation';
import { RULE_LIST_FIELDS, inspectionRuleView } from '../views/inspection-rule';
import { applyPatchedFields, patchValues, rejectArgs } from './resource-common';
import { NO_QUERY, arg, defineQuery } from '../request';

export const INSPECTION_RULES_VERSION = 96;

const SORT: SortSpec = {
  invalid: ['actions', 'conditions'],
  columns: columns(['uuid', 'priority', 'description', 'phase', 'sensitive', 'scope', 'created_at', 'updated_at']),
};

/** The fields a rule keeps that a request may set (the schema's properties). */
const RULE_FIELDS = ['uuid', 'description', 'priority', 'sensitive', 'phase', 'conditions', 'actions'] as const;

/** Below 1.96 the resource does not exist: 404 for GET, 405 for anything else. */
function gated<P>(
  handler: (req: ApiRequest, ctx: ApiContext, params: P) => Promise<ApiResponse>,
): (req: ApiRequest, ctx: ApiContext, params: P) => Promise<ApiResponse> {
  return (req, ctx, params) => {
    if (!atLeast(req.version, INSPECTION_RULES_VERSION)) {
      const message = 'The API version does not allow inspection rules';
      throw req.method === 'GET' || req.method === 'HEAD'
        ? new HttpError(404, 'Not Found', message)
        : new HttpError(405, 'Method Not Allowed', message);
    }
    return handler(req, ctx, params);
  };
}

/** The path's rule UUID, as Ironic's parameter schema checks it (format uuid). */
function ruleUuid(ident: string): string {
  if (!isOsloUuidLike(ident)) throw new InvalidParameterValue(`Schema error: ${pyRepr(ident)} is not a 'uuid'`);
  return ident;
}

/** The list's query, read in this order (limit, fields and detail first, as the list has always checked them). */
const ListQuery = defineQuery({
  limit: arg.integer(),
  fields: arg.stringList(),
  detail: arg.boolean(),
  marker: arg.string(),
  sort_key: arg.string(),
  sort_dir: arg.string(),
  phase: arg.string(),
});
const ShowQuery = defineQuery({ fields: arg.stringList() });

async function listRules(req: ApiRequest, ctx: ApiContext): Promise<ApiResponse> {
  const { limit, fields: fieldsArg, detail, marker, sort_key: sortKey = 'id', sort_dir: sortDir = 'asc', phase } = ListQuery.read(req);
  if (SORT.invalid.includes(sortKey)) {
    throw new InvalidParameterValue(
      `Schema error: ${pyRepr(sortKey)} should not be valid under {'type': 'string', 'enum': ['actions', 'conditions']}`,
    );
  }
  validateRequestSchema({ properties: { sort_dir: { type: 'string', enum: ['asc', 'desc'] } } }, { sort_dir: sortDir });
  const fields = returnFields(req, fieldsArg, detail, RULE_LIST_FIELDS);
  const paging = readPaging(ctx, limit, sortKey, sortDir);
  if (marker !== undefined) await ctx.stores.inspectionRules.get(marker);
  const page = await ctx.stores.inspectionRules.list(
    { limit: paging.limit, ...(marker ? { marker } : {}), sortKey: sortField(sortKey, SORT), sortDir: paging.sortDir },
    phase ? { phase } : {},
  );
  const body: Record<string, unknown> = {
    inspection_rules: page.items.map((r) => inspectionRuleView(r, { baseUrl: req.baseUrl, fields })),
  };
  const next = collectionNext(req, 'inspection_rules', page.items, paging, detail, fields);
  if (next !== undefined) body.next = next;
  return json(200, body);
}

async function getRule(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  const { fields } = ShowQuery.read(req);
  const rule = await ctx.stores.inspectionRules.get(ruleUuid(params.ident));
  return json(200, inspectionRuleView(rule, { baseUrl: req.baseUrl, fields }));
}

/** A rule's values from a request's body (or a patched rule), defaults filled in as Ironic's object has them. */
function ruleValues(data: Dict): Pick<InspectionRule, (typeof RULE_FIELDS)[number]> {
  return {
    uuid: (data.uuid as string | null | undefined) || newUuid(),
    description: (data.description as string | null | undefined) ?? null,
    priority: (data.priority as number | undefined) ?? 0,
    sensitive: data.sensitive === true,
    phase: (data.phase as string | undefined) ?? 'main',
    conditions: (data.conditions as Dict[] | undefined) ?? [],
    actions: data.actions as Dict[],
  };
}

async function createRule(req: ApiRequest, ctx: ApiContext): Promise<ApiResponse> {
  const body = parseBody(req) ?? {};
  rejectArgs(req, body);
  validateRequestSchema(INSPECTION_RULE_SCHEMA, body);
  const data = body as Dict;
  validateRule(data);
  if (data.uuid !== undefined && data.uuid !== null && data.uuid !== '') argUuid('uuid', data.uuid);
  const rule = await ctx.stores.inspectionRules.create(new InspectionRule({ ...ruleValues(data), created_at: new Date().toISOString() }));
  ctx.log.info('Inspection rule created', { rule: rule.uuid, priority: rule.priority, phase: rule.phase });
  return json(201, inspectionRuleView(rule, { baseUrl: req.baseUrl }), {
    Location: `${req.baseUrl}/v1/inspection_rules/${rule.uuid}`,
  });
}

async function patchRule(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  const parsed = parseBody(req);
  rejectArgs(req, parsed);
  argUuid('inspection_rule_uuid', params.ident);
  validateSchema('patch', PATCH_SCHEMA, parsed ?? {});
  validateRequestSchema(INSPECTION_RULE_PATCH_SCHEMA, parsed);
  const patch = parsed as PatchOperation[];
  const rule = await ctx.stores.inspectionRules.get(params.ident);
  const [sensitive] = patchValues(patch, '/sensitive');
  if (sensitive !== undefined && sensitive !== null && !sensitive && rule.sensitive) {
    throw new PatchError(pyRepr(patch), 'Inspection rules cannot have the sensitive flag unset.');
  }
  const patched = applyPatch(rule.toData() as Record<string, unknown>, patch);
  for (const key of Object.keys(patched)) if (!(key in (INSPECTION_RULE_SCHEMA.properties as object))) delete patched[key];
  validateSchema('patch', INSPECTION_RULE_SCHEMA, patched);
  argUuid('uuid', patched.uuid);
  validateRule(patched);
  // The UUID is the rule's key here: a rule keeps it (Ironic would rewrite the column).
  if (patched.uuid !== rule.uuid) throw new InvalidParameterValue("'/uuid' is an internal attribute and can not be updated");
  const values = ruleValues(patched);
  // Removing the flag does not unset it either.
  if (rule.sensitive) values.sensitive = true;
  const changed = applyPatchedFields(rule, values, RULE_FIELDS);
  const saved = changed.length > 0 ? await ctx.stores.inspectionRules.save(rule) : rule;
  ctx.log.info('Inspection rule updated', { rule: rule.uuid, changed });
  return json(200, inspectionRuleView(saved, { baseUrl: req.baseUrl }));
}

async function deleteRule(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  NO_QUERY.read(req);
  const rule = await ctx.stores.inspectionRules.get(ruleUuid(params.ident));
  await ctx.stores.inspectionRules.destroy(rule);
  ctx.log.info('Inspection rule deleted', { rule: rule.uuid });
  return noContent();
}

/** `DELETE /v1/inspection_rules`: every rule (there are no built-in ones to keep here). */
async function deleteAllRules(req: ApiRequest, ctx: ApiContext): Promise<ApiResponse> {
  NO_QUERY.read(req);
  const rules = await ctx.stores.inspectionRules.listPhase('main');
  for (const rule of rules) await ctx.stores.inspectionRules.destroy(rule);
  ctx.log.info('Inspection rules deleted', { count: rules.length });
  return noContent();
}

export const INSPECTION_RULE_ROUTES = [
  route('GET', '/v1/inspection_rules', gated(listRules)),
  route('POST', '/v1/inspection_rules', gated(createRule)),
  route('DELETE', '/v1/inspection_rules', gated(deleteAllRules)),
  route('GET', '/v1/inspection_rules/:ident', gated(getRule)),
  route('PATCH', '/v1/inspection_rules/:ident', gated(patchRule)),
  route('DELETE', '/v1/inspection_rules/:ident', gated(deleteRule)),
];
