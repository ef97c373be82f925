/**
 * `/v1/nodes/{node}/history` (1.78, Ironic's NodeHistoryController): a node's events, oldest first.
 * The standard view is uuid, created_at, severity and event (cut to 255 characters); `detail`
 * and the single event add event_type, conductor and user, from 1.113 project, and from 1.115
 * the node's state, target_provision_state and duration_seconds at the event. Below 1.78 the
 * path does not exist.
 */
import { ClientSideError, httpErrors } from '#common/errors';
import type { NodeHistory } from '#objects/node-history';
import type { ApiContext } from '../context';
import { type ApiRequest, type ApiResponse, json } from '../http';
import { findNode } from '../lookup';
import { type ApiVersion, atLeast } from '../microversion';
import { NO_QUERY, arg, defineQuery } from '../request';
import { route } from '../route';
import { makeLink } from '../views/links';
import { isoTime } from '../views/time';

const STANDARD_FIELDS = ['uuid', 'created_at', 'severity', 'event'];
/** Detail fields, each from the version that shows it (1.113: project; 1.115: the node's state). */
const DETAIL_FIELDS: readonly (readonly [string, number])[] = [
  ['uuid', 78],
  ['created_at', 78],
  ['severity', 78],
  ['event_type', 78],
  ['event', 78],
  ['conductor', 78],
  ['user', 78],
  ['project', 113],
  ['state', 115],
  ['target_provision_state', 115],
  ['duration_seconds', 115],
];

/** The detail fields at `version`. */
function detailFields(version: ApiVersion): string[] {
  return DETAIL_FIELDS.filter(([, since]) => atLeast(version, since)).map(([field]) => field);
}

/**
 * One event as Ironic shows it at `version`; `event` is cut to 251 characters and "..." outside
 * detail.
 */
export function historyView(
  baseUrl: string,
  nodeUuid: string,
  record: NodeHistory,
  detail: boolean,
  version: ApiVersion,
): Record<string, unknown> {
  const values = record as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const field of detail ? detailFields(version) : STANDARD_FIELDS) {
    out[field] = field === 'created_at' ? isoTime(record.created_at) : (values[field] ?? null);
  }
  if (!detail && typeof out.event === 'string' && out.event.length > 255) out.event = `${out.event.slice(0, 251)}...`;
  out.links = [makeLink('self', baseUrl, 'nodes', `${nodeUuid}/history/${record.uuid}`)];
  return out;
}

const HistoryQuery = defineQuery({ detail: arg.boolean(), marker: arg.uuid(), limit: arg.integer() });

function requireVersion(req: ApiRequest): void {
  if (!atLeast(req.version, 78)) throw httpErrors.notFound();
}

export async function getNodeHistory(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  requireVersion(req);
  const { detail = false, marker, limit: rawLimit } = HistoryQuery.read(req);
  const node = await findNode(req, ctx, params.ident);
  if (marker !== undefined) await ctx.stores.nodeHistory.get(marker);
  if (rawLimit !== undefined && rawLimit <= 0) throw new ClientSideError('Limit must be positive');
  const limit = Math.min(rawLimit ?? ctx.config.maxLimit, ctx.config.maxLimit);
  const page = await ctx.stores.nodeHistory.listByNode(node.uuid, { limit, ...(marker ? { marker } : {}) });
  const history = page.items.map((r) => historyView(req.baseUrl, node.uuid, r, detail, req.version));
  const body: Record<string, unknown> = { history };
  const last = page.items[page.items.length - 1];
  if (last !== undefined && page.items.length === limit) {
    // Ironic's next link repeats its marker argument as Python prints it ("None" on a first page)
    // and the fields of the view, then limit and the new marker. The detail list is the release's
    // whole list whatever the request's version (Ironic's `detail_fields`).
    const fields = (detail ? detailFields(ctx.maxVersion) : STANDARD_FIELDS).join(',');
    const previous = marker === undefined ? 'None' : marker;
    body.next = `${req.baseUrl}/v1/nodes/${params.ident}/history?marker=${previous}&fields=${fields}&limit=${limit}&marker=${last.uuid}`;
  }
  return json(200, body);
}

export async function getNodeHistoryEvent(
  req: ApiRequest,
  ctx: ApiContext,
  params: { ident: string; event: string },
): Promise<ApiResponse> {
  requireVersion(req);
  NO_QUERY.read(req);
  const node = await findNode(req, ctx, params.ident);
  // As Ironic: the event is looked up by UUID alone (a name or unknown UUID is not found).
  const record = await ctx.stores.nodeHistory.get(params.event);
  return json(200, historyView(req.baseUrl, node.uuid, record, true, req.version));
}

export const NODE_HISTORY_ROUTES = [
  route('GET', '/v1/nodes/:ident/history', getNodeHistory),
  route('GET', '/v1/nodes/:ident/history/:event', getNodeHistoryEvent),
];
