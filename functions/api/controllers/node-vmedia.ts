/**
 * `/v1/nodes/{node}/vmedia` (Ironic's NodeVmediaController): attach an image to a virtual media
 * device (POST, 1.89), detach some or all devices (DELETE, 1.89) and list the devices (GET, 1.93).
 * Below those versions the resource does not exist (404). Each is a conductor call: the conductor
 * locks the node (409 when it is locked), validates the management interface (400) and answers;
 * the action runs after the 204 with the node still locked (see the conductor's `spawn.ts`), and a
 * failure of it (the BMC refusing the image, a driver without virtual media) is the node's
 * last_error, as Ironic's worker leaves it.
 */
import { Invalid, httpErrors } from '#common/errors';
import { VMEDIA_DEVICES } from '#drivers/base';
import { parseBody } from '../body';
import type { ApiContext } from '../context';
import { type ApiRequest, type ApiResponse, json, noContent } from '../http';
import { findNode } from '../lookup';
import { atLeast } from '../microversion';
import { route } from '../route';
import { type JsonSchema, validateSchema } from '../validation';
import { NO_QUERY, arg, defineQuery } from '../request';

const MIN_ATTACH_DETACH = 89;
const MIN_GET = 93;

/** URL schemes a BMC can mount (Ironic's VMEDIA_SUPPORTED_URL_SCHEMES). */
const SUPPORTED_SCHEMES = ['http', 'https', 'nfs', 'cifs', 'smb'];

const ATTACH_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    device_type: { type: 'string', enum: [...VMEDIA_DEVICES] },
    image_url: { type: 'string' },
    image_download_source: { type: 'string', enum: ['http', 'local', 'swift'] },
  },
  required: ['device_type', 'image_url'],
  additionalProperties: false,
};

const DetachQuery = defineQuery({ device_types: arg.stringList() });

function checkVersion(req: ApiRequest, minor: number): void {
  if (!atLeast(req.version, minor)) throw httpErrors.notFound();
}

/** The scheme as Python's urlparse finds it: letters, digits, `+-.` before the first `:`, lower-cased; else empty. */
function schemeOf(url: string): string {
  const match = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(url);
  return match ? (match[1] as string).toLowerCase() : '';
}

export async function getVmedia(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  checkVersion(req, MIN_GET);
  NO_QUERY.read(req);
  const node = await findNode(req, ctx, params.ident);
  const devices = await ctx.rpc.call(ctx.rpc.message('get_virtual_media', { node_id: node.uuid }, { request_id: req.requestId }));
  // Ironic answers the conductor's list as it is: a JSON array.
  return json(200, devices);
}

export async function attachVmedia(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  checkVersion(req, MIN_ATTACH_DETACH);
  // No body is validated as an empty one, as Ironic's method.body does.
  const body = parseBody(req) ?? {};
  validateSchema('vmedia', ATTACH_SCHEMA, body);
  const vmedia = body as { device_type: string; image_url: string; image_download_source?: string };
  const scheme = schemeOf(vmedia.image_url);
  if (!SUPPORTED_SCHEMES.includes(scheme)) throw new Invalid(`Unsupported or missing URL scheme: ${scheme}`);
  const node = await findNode(req, ctx, params.ident);
  const args = {
    node_id: node.uuid,
    device_type: vmedia.device_type,
    image_url: vmedia.image_url,
    image_download_source: vmedia.image_download_source ?? 'local',
  };
  await ctx.rpc.call(ctx.rpc.message('attach_virtual_media', args, { request_id: req.requestId }));
  return noContent();
}

export async function detachVmedia(req: ApiRequest, ctx: ApiContext, params: { ident: string }): Promise<ApiResponse> {
  checkVersion(req, MIN_ATTACH_DETACH);
  const { device_types: deviceTypes } = DetachQuery.read(req);
  const devices: readonly string[] = VMEDIA_DEVICES;
  const invalid = (deviceTypes ?? []).filter((d) => !devices.includes(d));
  if (invalid.length > 0) {
    throw new Invalid(`Invalid device type(s) ${invalid.join(', ')} (valid are ${VMEDIA_DEVICES.join(', ')})`);
  }
  const node = await findNode(req, ctx, params.ident);
  // Without device_types every device is ejected; an empty list (`?device_types=`) ejects none, as in Ironic.
  const message = ctx.rpc.message(
    'detach_virtual_media',
    deviceTypes === undefined ? { node_id: node.uuid } : { node_id: node.uuid, device_types: deviceTypes },
    { request_id: req.requestId },
  );
  await ctx.rpc.call(message);
  return noContent();
}

export const NODE_VMEDIA_ROUTES = [
  route('GET', '/v1/nodes/:ident/vmedia', getVmedia),
  route('POST', '/v1/nodes/:ident/vmedia', attachVmedia),
  route('DELETE', '/v1/nodes/:ident/vmedia', detachVmedia),
];
