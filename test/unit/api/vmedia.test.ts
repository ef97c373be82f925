/**
 * `/v1/nodes/{node}/vmedia`: what the controller refuses before it reads the node (versions,
 * body schema, URL scheme, device types), with Ironic's statuses and messages, and the calls it
 * makes. The context is a stub: reading the node answers a fixed node, the RPC client records.
 */
import type { ApiContext } from '../../../functions/api/context';
import { attachVmedia, detachVmedia, getVmedia } from '../../../functions/api/controllers/node-vmedia';
import type { ApiRequest } from '../../../functions/api/http';
import { makeNode } from '../helpers/builders';

const NODE = makeNode();

function request(method: string, minor: number, body?: unknown, query: Record<string, string[]> = {}): ApiRequest {
  return {
    method,
    path: `/v1/nodes/${NODE.uuid}/vmedia`,
    query,
    headers: {},
    body: body === undefined ? undefined : JSON.stringify(body),
    requestId: 'req-1',
    baseUrl: 'http://api',
    version: { major: 1, minor },
  };
}

function stubContext() {
  const sent: { method: string; args: unknown }[] = [];
  const ctx = {
    nodes: { get: async () => NODE, getByName: async () => NODE },
    rpc: {
      message: (method: string, args: unknown) => ({ method, args }),
      call: async (message: { method: string; args: unknown }) => {
        sent.push(message);
        return message.method === 'get_virtual_media' ? [{ media_types: ['CD'], inserted: false, image: null }] : null;
      },
    },
  };
  return { ctx: ctx as unknown as ApiContext, sent };
}

async function refusal(p: Promise<unknown>): Promise<[number, string]> {
  try {
    await p;
  } catch (err) {
    const e = err as Error & { status?: number; code?: number; constructor: { code?: number } };
    return [e.status ?? e.code ?? e.constructor.code ?? 0, e.message];
  }
  throw new Error('not refused');
}

const params = { ident: NODE.uuid };

describe('the vmedia resource', () => {
  it('does not exist below 1.89, and its GET not below 1.93', async () => {
    const { ctx, sent } = stubContext();
    const good = { device_type: 'cdrom', image_url: 'http://i/x.iso' };
    expect((await refusal(attachVmedia(request('POST', 88, good), ctx, params)))[0]).toBe(404);
    expect((await refusal(detachVmedia(request('DELETE', 88), ctx, params)))[0]).toBe(404);
    expect((await refusal(getVmedia(request('GET', 92), ctx, params)))[0]).toBe(404);
    expect(sent).toEqual([]);
  });

  it('attaches with image_download_source defaulting to local, and lists devices as a JSON array', async () => {
    const { ctx, sent } = stubContext();
    expect((await attachVmedia(request('POST', 89, { device_type: 'disk', image_url: 'HTTPS://i/x.img' }), ctx, params)).status).toBe(204);
    expect(await getVmedia(request('GET', 93), ctx, params)).toMatchObject({
      status: 200,
      body: [{ media_types: ['CD'], inserted: false, image: null }],
    });
    expect(sent[0]).toEqual({
      method: 'attach_virtual_media',
      args: { node_id: NODE.uuid, device_type: 'disk', image_url: 'HTTPS://i/x.img', image_download_source: 'local' },
    });
  });

  it('refuses bodies that do not match Ironic’s schema, and URL schemes a BMC cannot mount', async () => {
    const { ctx, sent } = stubContext();
    const post = (body: unknown) => refusal(attachVmedia(request('POST', 89, body), ctx, params));
    expect(await post(undefined)).toEqual([400, "Schema error for vmedia: 'device_type' is a required property"]);
    expect(await post({ device_type: 'usb', image_url: 'http://i' })).toEqual([
      400,
      "Schema error for vmedia: 'usb' is not one of ['disk', 'cdrom', 'floppy']",
    ]);
    expect(await post({ device_type: 'cdrom', image_url: 'http://i', extra: 1 })).toEqual([
      400,
      "Schema error for vmedia: Additional properties are not allowed ('extra' was unexpected)",
    ]);
    expect(await post({ device_type: 'cdrom', image_url: 'ftp://i/x.iso' })).toEqual([400, 'Unsupported or missing URL scheme: ftp']);
    expect(await post({ device_type: 'cdrom', image_url: '/x.iso' })).toEqual([400, 'Unsupported or missing URL scheme: ']);
    expect(sent).toEqual([]);
  });

  it('detaches every device, or the device types named (comma-separated; none for an empty list), refusing unknown ones', async () => {
    const { ctx, sent } = stubContext();
    await detachVmedia(request('DELETE', 89), ctx, params);
    await detachVmedia(request('DELETE', 89, undefined, { device_types: ['CDROM, floppy,cdrom'] }), ctx, params);
    await detachVmedia(request('DELETE', 89, undefined, { device_types: [''] }), ctx, params);
    expect(sent.map((m) => m.args)).toEqual([
      { node_id: NODE.uuid },
      { node_id: NODE.uuid, device_types: ['cdrom', 'floppy'] },
      { node_id: NODE.uuid, device_types: [] },
    ]);
    expect(await refusal(detachVmedia(request('DELETE', 89, undefined, { device_types: ['cdrom,usb,dvd'] }), ctx, params))).toEqual([
      400,
      'Invalid device type(s) usb, dvd (valid are disk, cdrom, floppy)',
    ]);
    expect(await refusal(detachVmedia(request('DELETE', 89, undefined, { other: ['x'] }), ctx, params))).toEqual([
      400,
      'Unexpected arguments: other',
    ]);
  });
});
