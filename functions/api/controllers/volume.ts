/**
 * `/v1/volume` (API 1.32): the root with its links, and the routes of volume connectors and
 * targets, top-level and under `/v1/nodes/{node}/volume` (Ironic's VolumeController). The handlers
 * are in volume-common.ts, the two kinds in volume-kinds.ts.
 */
import type { ApiContext } from '../context';
import { type ApiRequest, type ApiResponse, json } from '../http';
import { checkNodeIdent } from '../lookup';
import { type Route, route } from '../route';
import { volumeRootView } from '../views/volume';
import { createVolume, deleteVolume, getVolume, listVolume, patchVolume, requireVolumeRoot } from './volume-common';
import { CONNECTORS, TARGETS, type VolumeItem, type VolumeKind } from './volume-kinds';

/** `GET /v1/volume` and `GET /v1/nodes/{node}/volume`: links, the node named as given. */
async function getRoot(req: ApiRequest, _ctx: ApiContext, params: { node?: string }): Promise<ApiResponse> {
  if (params.node !== undefined) checkNodeIdent(params.node);
  requireVolumeRoot(req);
  return json(200, volumeRootView(req.baseUrl, params.node));
}

type Params = { node?: string; id: string };

function kindRoutes<T extends VolumeItem>(kind: VolumeKind<T>): Route[] {
  const top = `/v1/volume/${kind.plural}`;
  const nested = `/v1/nodes/:node/volume/${kind.plural}`;
  const list = (req: ApiRequest, ctx: ApiContext, p: { node?: string }) => listVolume(kind, req, ctx, p.node);
  const create = (req: ApiRequest, ctx: ApiContext, p: { node?: string }) => createVolume(kind, req, ctx, p.node);
  const get = (req: ApiRequest, ctx: ApiContext, p: Params) => getVolume(kind, req, ctx, p.id, p.node);
  const patch = (req: ApiRequest, ctx: ApiContext, p: Params) => patchVolume(kind, req, ctx, p.id, p.node);
  const del = (req: ApiRequest, ctx: ApiContext, p: Params) => deleteVolume(kind, req, ctx, p.id, p.node);
  return [top, nested].flatMap((base) => [
    route('GET', base, list),
    route('POST', base, create),
    route('GET', `${base}/:id`, get),
    route('PATCH', `${base}/:id`, patch),
    route('DELETE', `${base}/:id`, del),
  ]);
}

export const VOLUME_ROUTES: readonly Route[] = [
  route('GET', '/v1/volume', getRoot),
  route('GET', '/v1/nodes/:node/volume', getRoot),
  ...kindRoutes(CONNECTORS),
  ...kindRoutes(TARGETS),
];
