/**
 * `/v1/chassis`: list, detail, show, create, update, delete (Ironic 21.4's ChassisController),
 * and `/v1/chassis/{uuid}/nodes`, the node list of one chassis.
 */
import { ClientSideError, InvalidParameterValue } from '#common/errors';
import { newUuid } from '#common/ids';
import { Chassis } from '#objects/chassis';
import { argUuid } from '../args';
import { NO_QUERY, arg, defineQuery } from '../request';
import { parseBody } from '../body';
import type { ApiContext } from '../context';
import { type ApiRequest, type ApiResponse, json, noContent } from '../http';
import { type PatchOperation, applyPatch } from '../patch';
import {
  type SortSpec,
  checkAllowSpecifyFields,
  checkInvalidSortKey,
  collectionNext,
  columns,
  listQuery,
  readPaging,
  returnFields,
  sortField,
} from '../resource-list';
import { route } from '../route';
import { CHASSIS_SCHEMA } from '../schemas/deploy-template';
import { PATCH_SCHEMA } from '../schemas/node';
import { validateSchema } from '../validation';
import { CHASSIS_LIST_FIELDS, chassisView } from '../views/chassis';
import { getNodes, getNodesDetail } from './nodes';
import { applyPatchedFields, checkPatchPaths, rejectArgs } from './resource-common';

const SORT: SortSpec = { invalid: ['extra'], columns: columns(['uuid', 'description', 'created_at', 'updated_at']) };

const PAGING = { marker: arg.uuid(), limit: arg.integer(), sort_key: arg.string(), sort_dir: arg.string() };
/** `/v1/chassis/detail` takes paging only; `/v1/chassis` also `fields` and `detail`. */
const DetailListQuery = defineQuery(PAGING);
const ListQuery = listQuery(arg.uuid());
const ShowQuery = defineQuery({ fields: arg.stringList() });

async function listChassis(req: ApiRequest, ctx: ApiContext, detailPath: boolean): Promise<ApiResponse> {
  const query = detailPath ? { ...DetailListQuery.read(req), fields: undefined, detail: undefined } : ListQuery.read(req);
  const { marker, limit, sort_key: sortKey = 'id', sort_dir: sortDir = 'asc', detail } = query;
  let fields = query.fields;
  if (!detailPath) {
    checkAllowSpecifyFields(req, fields);
    fields = returnFields(req, fields, detail, CHASSIS_LIST_FIELDS);
  } else if (req.path.endsWith('/')) {
    throw new ClientSideError('Resource could not be found.', 404);
  }
  const paging = readPaging(ctx, limit, sortKey, sortDir);
  if (marker !== undefined) await ctx.stores.chassis.get(marker);
  checkInvalidSortKey(sortKey, SORT);
  const page = await ctx.stores.chassis.list({
    limit: paging.limit,
    marker,
    sortKey: sortField(sortKey, SORT),
    sortDir: paging.sortDir,
  });
  const views = page.items.map((c) => chassisView(c, { baseUrl: req.baseUrl, fields }));
  const body: Record<string, unknown> = { chassis: views };
  const next = collectionNext(req, detailPath ? 'chassis/detail' : 'chassis', page.items, paging, detail, fields);
  if (next !== undefined) body.next = next;
  return json(200, body);
}

async function getChassis(req: ApiRequest, ctx: ApiContext, params: { uuid: string }): Promise<ApiResponse> {
  const { fields } = ShowQuery.read(req);
  const uuid = argUuid('chassis_uuid', params.uuid) as string;
  checkAllowSpecifyFields(req, fields);
  const chassis = await ctx.stores.chassis.get(uuid);
  return json(200, chassisView(chassis, { baseUrl: req.baseUrl, fields }));
}

async function createChassis(req: ApiRequest, ctx: ApiContext): Promise<ApiResponse> {
  const body = parseBody(req) ?? {};
  rejectArgs(req, body);
  validateSchema('chassis', CHASSIS_SCHEMA, body);
  const data = body as Record<string, unknown>;
  const uuid = argUuid('uuid', data.uuid) || newUuid();
  const chassis = await ctx.stores.chassis.create(
    new Chassis({ uuid, description: data.description ?? null, extra: data.extra ?? {}, created_at: new Date().toISOString() }),
  );
  ctx.log.info('Chassis created', { chassis: chassis.uuid });
  return json(201, chassisView(chassis, { baseUrl: req.baseUrl }), { Location: `${req.baseUrl}/v1/chassis/${chassis.uuid}` });
}

async function patchChassis(req: ApiRequest, ctx: ApiContext, params: { uuid: string }): Promise<ApiResponse> {
  const parsed = parseBody(req);
  rejectArgs(req, parsed);
  validateSchema('patch', PATCH_SCHEMA, parsed ?? {});
  const patch = parsed as PatchOperation[];
  checkPatchPaths(patch, Object.keys(CHASSIS_SCHEMA.properties as object));
  const chassis = await ctx.stores.chassis.get(params.uuid);
  const patched = applyPatch({ ...(chassis.toData() as Record<string, unknown>) }, patch);
  for (const key of Object.keys(patched)) if (!(key in (CHASSIS_SCHEMA.properties as object))) delete patched[key];
  validateSchema('patch', CHASSIS_SCHEMA, patched);
  if (patched.uuid !== undefined && patched.uuid !== null) argUuid('uuid', patched.uuid);
  const changed = applyPatchedFields(chassis, patched, ['uuid', 'extra', 'description']);
  if (changed.includes('uuid')) throw new InvalidParameterValue('Cannot overwrite UUID for an existing Chassis.');
  const saved = changed.length > 0 ? await ctx.stores.chassis.save(chassis) : chassis;
  return json(200, chassisView(saved, { baseUrl: req.baseUrl }));
}

async function deleteChassis(req: ApiRequest, ctx: ApiContext, params: { uuid: string }): Promise<ApiResponse> {
  NO_QUERY.read(req);
  const uuid = argUuid('chassis_uuid', params.uuid) as string;
  const chassis = await ctx.stores.chassis.get(uuid);
  await ctx.stores.chassis.destroy(chassis);
  ctx.log.info('Chassis deleted', { chassis: chassis.uuid });
  return noContent();
}

/** `/v1/chassis/{uuid}/nodes`: the node list with the chassis as its filter. */
function chassisNodes(detail: boolean) {
  return async (req: ApiRequest, ctx: ApiContext, params: { uuid: string }): Promise<ApiResponse> => {
    const query = { ...req.query, chassis_uuid: [params.uuid] };
    const nested = { ...req, query, path: req.path } as ApiRequest;
    return detail ? getNodesDetail(nested, ctx) : getNodes(nested, ctx);
  };
}

export const CHASSIS_ROUTES = [
  route('GET', '/v1/chassis', (req: ApiRequest, ctx: ApiContext) => listChassis(req, ctx, false)),
  route('POST', '/v1/chassis', createChassis),
  route('GET', '/v1/chassis/detail', (req: ApiRequest, ctx: ApiContext) => listChassis(req, ctx, true)),
  route('GET', '/v1/chassis/:uuid', getChassis),
  route('PATCH', '/v1/chassis/:uuid', patchChassis),
  route('DELETE', '/v1/chassis/:uuid', deleteChassis),
  route('GET', '/v1/chassis/:uuid/nodes', chassisNodes(false)),
  route('GET', '/v1/chassis/:uuid/nodes/detail', chassisNodes(true)),
];
