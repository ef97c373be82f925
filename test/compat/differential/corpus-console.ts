/**
 * The requests of the differential corpus for the node console, indicators, external events and
 * vendor passthru (nodes and drivers), with their errors. The suite pins Ironless to 2026.2 (RPC
 * 1.0): what needs the conductor's new calls (RPC 1.3) answers 503 there, a known difference, so
 * only one request of each such kind is sent (the integration tests cover the rest); the rest —
 * validation, refusals, the methods' metadata, events — is compared with Ironic 21.4.
 */
import { FD, MISSING, type Step, V, get, post, put } from './corpus-helpers';

const C = '/v1/nodes/cs1/states/console';
const EVENT = {
  event: 'network.bind_port',
  port_id: '55555555-5555-4555-8555-555555555555',
  mac_address: '52:54:00:12:34:56',
  status: 'ACTIVE',
};

const CONSOLE: Step[] = [
  post('create for the console', { ...FD, name: 'cs1' }, V, { cs1: 'uuid' }),
  post('create without a console', { ...FD, name: 'cs2', console_interface: 'no-console', vendor_interface: 'no-vendor' }),
  get('console off', C),
  get('console at 1.1 by uuid', '/v1/nodes/{cs1}/states/console', '1.1'),
  get('console of a node without one', '/v1/nodes/cs2/states/console'),
  get('console with a query argument', `${C}?x=1`),
  get('console of an unknown node', `/v1/nodes/${MISSING}/states/console`),
  // Ironic's states controller is an attribute of its nodes controller too: the node comes last.
  get('states with the node last', '/v1/nodes/states/cs1'),
  get('console with the node last', '/v1/nodes/states/console/cs1'),
  get('states without a node', '/v1/nodes/states'),
  get('console without a node', '/v1/nodes/states/console'),
  get('states of a node named after an action', '/v1/nodes/states/power'),
  put('console with the node last without enabled', '/v1/nodes/states/console/cs1', {}),
  put('console without a node', '/v1/nodes/states/console', { enabled: true }),
  put('power with the node last without a target', '/v1/nodes/states/power/cs1', {}),
  put('power without a node', '/v1/nodes/states/power', { target: 'power on' }),
  put('states with the node last with PUT', '/v1/nodes/states/cs1', {}),
  { name: 'states with the node last with DELETE', method: 'DELETE', path: '/v1/nodes/states/cs1', version: V },
  { name: 'states without a node with POST', method: 'POST', path: '/v1/nodes/states', body: {}, version: V },
  put('console without enabled', C, {}),
  put('console without a body', C),
  put('console with a bad enabled', C, { enabled: 'maybe' }),
  put('console with an unexpected argument', C, { enabled: true, x: 1 }),
  put('console on a node without one', '/v1/nodes/cs2/states/console', { enabled: true }),
  put('console off while off', C, { enabled: false }),
  put('console on', C, { enabled: 'yes' }),
  put('console on an unknown node', `/v1/nodes/${MISSING}/states/console`, { enabled: true }),
  { name: 'console with POST', method: 'POST', path: C, body: { enabled: true }, version: V },
];

const I = '/v1/nodes/cs1/management/indicators';

const INDICATORS: Step[] = [
  get('indicators', I),
  get('indicator state', `${I}/led@system`),
  get('indicator without a component', `${I}/led`),
  get('indicator with a query argument', `${I}/led@system?x=1`),
  get('indicators of an unknown node', `/v1/nodes/${MISSING}/management/indicators`),
  put('set an indicator', `${I}/led@system`, { state: 'BLINKING' }),
  put('set an indicator without a state', `${I}/led@system`, {}),
  put('set an indicator without a component', `${I}/led`, { state: 'ON' }),
  put('set no indicator', I, { state: 'ON' }),
  put('set an indicator with an unexpected argument', `${I}/led@system`, { state: 'ON', x: 1 }),
];

const ev = (name: string, body: unknown, version = V): Step => ({ name, method: 'POST', path: '/v1/events', body, version });

const EVENTS: Step[] = [
  ev('event at 1.53', { events: [EVENT] }, '1.53'),
  ev('event', { events: [EVENT] }, '1.54'),
  ev('event with every field', {
    events: [{ ...EVENT, device_id: null, 'binding:host_id': EVENT.port_id, 'binding:vnic_type': 'baremetal' }],
  }),
  ev('events empty', { events: [] }),
  ev('events missing', {}),
  { name: 'events without a body', method: 'POST', path: '/v1/events', version: V },
  ev('event without its fields', { events: [{ event: 'network.bind_port' }] }),
  ev('event of an unknown type', { events: [{ event: 'compute.x' }] }),
  ev('event without a type', { events: [{ port_id: 'x' }] }),
  ev('event with a bad port id', { events: [{ ...EVENT, port_id: 'x' }] }),
  ev('event with a bad MAC', { events: [{ ...EVENT, mac_address: 'zz' }] }),
  ev('event with an unknown field', { events: [{ ...EVENT, extra: 1 }] }),
  ev('event with a bad device id', { events: [{ ...EVENT, device_id: 'abc' }] }),
  ev('events as an object', { events: { a: 1 } }),
  ev('events with an unknown field', { events: [], x: 1 }),
  ev('events as a list', [1]),
  get('events with GET', '/v1/events'),
  get('events with GET at 1.53', '/v1/events', '1.53'),
];

const P = '/v1/nodes/cs1/vendor_passthru';
const call = (name: string, method: string, path: string, body?: unknown): Step => ({
  name,
  method,
  path,
  version: V,
  ...(body !== undefined ? { body } : {}),
});

const PASSTHRU: Step[] = [
  get('vendor methods', `${P}/methods`),
  get('vendor methods with a query argument', `${P}/methods?x=1`),
  get('vendor methods of an unknown node', `/v1/nodes/${MISSING}/vendor_passthru/methods`),
  get('driver vendor methods', '/v1/drivers/fake-hardware/vendor_passthru/methods'),
  get('driver vendor methods of an unknown driver', '/v1/drivers/nope/vendor_passthru/methods'),
  call('passthru sync', 'POST', `${P}?method=third_method_sync`, { bar: 'meow' }),
  call('passthru without bar', 'POST', `${P}?method=third_method_sync`, {}),
  call('passthru without a body', 'POST', `${P}?method=third_method_sync`),
  call('passthru with GET', 'GET', `${P}?method=third_method_sync`),
  call('passthru with PUT', 'PUT', `${P}?method=third_method_sync`, { bar: 'meow' }),
  call('passthru with DELETE', 'DELETE', `${P}?method=third_method_sync`),
  call('passthru of an unknown method', 'POST', `${P}?method=nope`, {}),
  call('passthru without a method', 'POST', P, {}),
  call('passthru with an unexpected argument', 'POST', `${P}?method=third_method_sync&x=1`, { bar: 'meow' }),
  call('passthru on no-vendor', 'POST', '/v1/nodes/cs2/vendor_passthru?method=x', {}),
  call('passthru on an unknown node', 'POST', `/v1/nodes/${MISSING}/vendor_passthru?method=x`, {}),
  call('passthru named methods with POST', 'POST', `${P}/methods`, {}),
  call('driver passthru of an unknown method', 'POST', '/v1/drivers/fake-hardware/vendor_passthru?method=x', {}),
  call('driver passthru without a method', 'POST', '/v1/drivers/fake-hardware/vendor_passthru', {}),
  call('driver passthru of an unknown driver', 'POST', '/v1/drivers/nope/vendor_passthru?method=x', {}),
];

export const CONSOLE_EVENTS_PASSTHRU: Step[] = [...CONSOLE, ...INDICATORS, ...EVENTS, ...PASSTHRU];
