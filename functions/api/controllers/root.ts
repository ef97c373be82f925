/** Version discovery: `GET /` and `GET /v1` (Ironic's root.py and v1/__init__.py). */
import { type ApiRequest, type ApiResponse, json } from '../http';
import type { ApiContext } from '../context';
import { MIN_VERSION, atLeast, versionString } from '../microversion';
import { makeLink, selfAndBookmark } from '../views/links';

function defaultVersion(ctx: ApiContext, baseUrl: string) {
  return {
    id: 'v1',
    links: [makeLink('self', baseUrl, 'v1', '', true)],
    status: 'CURRENT',
    min_version: versionString(MIN_VERSION),
    version: versionString(ctx.maxVersion),
  };
}

export async function getRoot(req: ApiRequest, ctx: ApiContext): Promise<ApiResponse> {
  const version = defaultVersion(ctx, req.baseUrl);
  return json(200, {
    name: 'OpenStack Ironic API',
    description: 'Ironic is an OpenStack project which enables the provision and management of baremetal machines.',
    default_version: version,
    versions: [version],
  });
}

/** Resources listed in `GET /v1`, with the minor version from which each is linked. */
const V1_RESOURCES: readonly [name: string, minor: number][] = [
  ['chassis', 1],
  ['nodes', 1],
  ['ports', 1],
  ['drivers', 1],
  ['portgroups', 23],
  ['volume', 32],
  ['lookup', 22],
  ['heartbeat', 22],
  ['conductors', 49],
  ['allocations', 52],
  ['events', 54],
  ['deploy_templates', 55],
  ['shards', 82],
  ['runbooks', 92],
  ['inspection_rules', 96],
];

export async function getV1(req: ApiRequest, ctx: ApiContext): Promise<ApiResponse> {
  const url = req.baseUrl;
  const body: Record<string, unknown> = {
    id: 'v1',
    links: [
      makeLink('self', url, 'v1', '', true),
      { href: 'https://docs.openstack.org//ironic/latest/contributor//webapi.html', rel: 'describedby', type: 'text/html' },
    ],
    media_types: { base: 'application/json', type: 'application/vnd.openstack.ironic.v1+json' },
  };
  for (const [name, minor] of V1_RESOURCES.slice(0, 4)) if (atLeast(req.version, minor)) body[name] = selfAndBookmark(url, name, '');
  body.version = defaultVersion(ctx, url);
  for (const [name, minor] of V1_RESOURCES.slice(4)) if (atLeast(req.version, minor)) body[name] = selfAndBookmark(url, name, '');
  return json(200, body);
}
