/**
 * External events (Ironic's EventsController, API 1.54): `POST /v1/events` with
 * `{"events": [{"event": "network.bind_port", …}]}`. As in Ironic, events are validated and
 * logged, nothing more: the `noop` and `flat` network interfaces have nothing to do with a
 * port's binding. Validation is Ironic 21.4's, in its order and words: the envelope's schema,
 * then each event's schema, then its UUIDs and MAC address.
 */
import { NotFound, httpErrors } from '#common/errors';
import { argUuid } from '../args';
import { parseBody } from '../body';
import type { ApiContext } from '../context';
import { type ApiRequest, type ApiResponse, noContent } from '../http';
import { atLeast } from '../microversion';
import { route } from '../route';
import { argMac } from '../schemas/port';
import { validateSchema } from '../validation';

const MIN_EVENTS = 54;
const EVENT_TYPES = ['network.bind_port', 'network.unbind_port', 'network.delete_port'];

const EVENTS_SCHEMA = {
  type: 'object',
  properties: {
    events: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        properties: { event: { type: 'string', enum: EVENT_TYPES } },
        required: ['event'],
        additionalProperties: true,
      },
    },
  },
  required: ['events'],
  additionalProperties: false,
};

/** Every network event's schema (Ironic's NETWORK_EVENT_VALIDATOR). */
const NETWORK_EVENT_SCHEMA = {
  type: 'object',
  properties: {
    event: { type: 'string' },
    port_id: { type: 'string' },
    mac_address: { type: 'string' },
    status: { type: 'string' },
    device_id: { type: ['string', 'null'] },
    'binding:host_id': { type: ['string', 'null'] },
    'binding:vnic_type': { type: ['string', 'null'] },
  },
  required: ['event', 'port_id', 'mac_address', 'status'],
  additionalProperties: false,
};

export async function postEvents(req: ApiRequest, ctx: ApiContext): Promise<ApiResponse> {
  if (!atLeast(req.version, MIN_EVENTS)) throw new NotFound('Resource could not be found.');
  // An empty body is an empty object to Ironic: "'events' is a required property".
  const body = parseBody(req) ?? {};
  validateSchema('evts', EVENTS_SCHEMA, body);
  const events = (body as { events: Record<string, unknown>[] }).events;
  for (const event of events) {
    validateSchema('evts', NETWORK_EVENT_SCHEMA, event);
    argUuid('port_id', event.port_id);
    argMac('mac_address', event.mac_address);
    argUuid('device_id', event.device_id);
    argUuid('binding:host_id', event['binding:host_id']);
  }
  for (const event of events) ctx.log.info('Received external event', { event });
  return noContent();
}

/** Before 1.54 the resource is unknown: anything but POST is webob's plain 404, as Ironic's `_lookup` aborts. */
async function otherMethod(req: ApiRequest): Promise<ApiResponse> {
  if (!atLeast(req.version, MIN_EVENTS)) throw httpErrors.notFound();
  throw httpErrors.methodNotAllowed('', ['POST']);
}

export const EVENT_ROUTES = [
  route('POST', '/v1/events', postEvents),
  ...['GET', 'PUT', 'PATCH', 'DELETE'].map((method) => route(method, '/v1/events', otherMethod)),
];
