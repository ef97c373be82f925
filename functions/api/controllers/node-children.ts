/**
 * `GET /v1/nodes/{node}/children` (API 1.83, Ironic's NodeChildrenController): the UUIDs of the
 * nodes whose `parent_node` is this node, and a link to the node list filtered by that parent.
 */
import { httpErrors } from '#common/errors';
import type { ApiContext } from '../context';
import { type ApiRequest, type ApiResponse, json } from '../http';
import { findNode } from '../lookup';
import { atLeast } from '../microversion';
import { route } from '../route';
import { makeLink } from '../views/links';
import { NO_QUERY } from '../request';

export const CHILD_NODES_VERSION = 83;
const PAGE = 1000;

async function getChildren(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  if (!atLeast(req.version, CHILD_NODES_VERSION)) throw httpErrors.notFound();
  NO_QUERY.read(req);
  const parent = await findNode(req, ctx, params.ident);
  const children: string[] = [];
  let marker: string | undefined;
  for (;;) {
    const page = await ctx.nodes.list({ parentNode: parent.uuid }, { limit: PAGE, marker });
    children.push(...page.nodes.map((n) => n.uuid));
    if (!page.more || page.nodes.length === 0) break;
    marker = page.nodes[page.nodes.length - 1]?.uuid;
  }
  // Ironic's `links` here is one link, not a list.
  return json(200, { children, links: makeLink('children', req.baseUrl, 'nodes', `?parent_node=${parent.uuid}`) });
}

export const NODE_CHILDREN_ROUTES = [route('GET', '/v1/nodes/:ident/children', getChildren)];
