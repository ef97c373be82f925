/**
 * Volume connectors and targets as the API shows them (Ironic 21.4's volume_connector.py and
 * volume_target.py `convert_with_links`, volume.py `convert`): fields in Ironic's order, the
 * `fields` selection, and a target's `properties` with secrets masked (`target_sanitize`).
 */
import type { VolumeConnector } from '#objects/volume-connector';
import type { VolumeTarget } from '#objects/volume-target';
import { checkInvalidFields, selectFields } from '../resource-list';
import { makeLink, selfAndBookmark } from './links';
import { maskPasswords } from './sanitize';
import { isoTime } from './time';

/** Fields of a list without `detail` or `fields`. */
export const CONNECTOR_LIST_FIELDS = ['uuid', 'node_uuid', 'type', 'connector_id'];
export const TARGET_LIST_FIELDS = ['uuid', 'node_uuid', 'volume_type', 'boot_index', 'volume_id'];

export interface VolumeViewOptions {
  readonly baseUrl: string;
  readonly fields?: readonly string[] | undefined;
}

function finish(out: Record<string, unknown>, uuid: string, nodeUuid: string, options: VolumeViewOptions, resource: string) {
  out.links = selfAndBookmark(options.baseUrl, resource, uuid);
  out.node_uuid = nodeUuid;
  checkInvalidFields(options.fields, Object.keys(out));
  return selectFields(out, options.fields);
}

export function connectorView(c: VolumeConnector, options: VolumeViewOptions): Record<string, unknown> {
  const out: Record<string, unknown> = {
    uuid: c.uuid,
    created_at: isoTime(c.created_at),
    updated_at: isoTime(c.updated_at),
    connector_id: c.connector_id,
    extra: c.extra ?? {},
    type: c.type,
  };
  return finish(out, c.uuid, c.node_uuid, options, 'volume/connectors');
}

export function targetView(t: VolumeTarget, options: VolumeViewOptions): Record<string, unknown> {
  const out: Record<string, unknown> = {
    uuid: t.uuid,
    created_at: isoTime(t.created_at),
    updated_at: isoTime(t.updated_at),
    boot_index: t.boot_index,
    extra: t.extra ?? {},
    properties: t.properties ?? {},
    volume_id: t.volume_id,
    volume_type: t.volume_type,
  };
  const view = finish(out, t.uuid, t.node_uuid, options, 'volume/targets');
  // Ironic masks after the selection, and only a non-empty dict.
  const properties = view.properties as Record<string, unknown> | undefined;
  if (properties && Object.keys(properties).length > 0) view.properties = maskPasswords(properties);
  return view;
}

/** `GET /v1/volume` and `GET /v1/nodes/{node}/volume`: links only (the node is not looked up). */
export function volumeRootView(baseUrl: string, node?: string): Record<string, unknown> {
  const [resource, args] = node === undefined ? ['volume', ''] : ['nodes', `${node}/volume/`];
  const pair = (sub: string) => [
    makeLink('self', baseUrl, resource, args + sub),
    makeLink('bookmark', baseUrl, resource, args + sub, true),
  ];
  return { links: pair(''), connectors: pair('connectors'), targets: pair('targets') };
}
