/**
 * Conductors, drivers and node history against Ironic 21.4: lists, details, fields, paging and
 * their errors at several microversions. `{conductor}` is the target's conductor host name.
 */
import { FD, MISSING, type Step, get, post } from './corpus-helpers';

const CONDUCTORS: Step[] = [
  get('conductors', '/v1/conductors'),
  get('conductors at 1.48', '/v1/conductors', '1.48'),
  get('conductors at 1.49', '/v1/conductors', '1.49'),
  get('conductors detail', '/v1/conductors?detail=true'),
  get('conductors detail false', '/v1/conductors?detail=false'),
  get('conductors with fields', '/v1/conductors?fields=hostname,alive'),
  get('conductors with drivers field', '/v1/conductors?fields=drivers'),
  get('conductors with an unknown field', '/v1/conductors?fields=nope'),
  get('conductors with detail and fields', '/v1/conductors?detail=true&fields=hostname'),
  get('conductors sorted by alive', '/v1/conductors?sort_key=alive'),
  get('conductors sorted by drivers', '/v1/conductors?sort_key=drivers'),
  get('conductors sorted by an unknown key', '/v1/conductors?sort_key=nope'),
  get('conductors sorted by hostname desc', '/v1/conductors?sort_key=hostname&sort_dir=desc'),
  get('conductors with a bad sort_dir', '/v1/conductors?sort_dir=up'),
  get('conductors limit 1', '/v1/conductors?limit=1'),
  get('conductors limit 1 detail', '/v1/conductors?limit=1&detail=true'),
  get('conductors limit 0', '/v1/conductors?limit=0'),
  get('conductors limit not a number', '/v1/conductors?limit=x'),
  get('conductors after the last', '/v1/conductors?marker={conductor}'),
  get('conductors with an unknown marker', '/v1/conductors?marker=nope'),
  get('conductors with an unexpected argument', '/v1/conductors?foo=bar'),
  get('conductor', '/v1/conductors/{conductor}'),
  get('conductor with fields', '/v1/conductors/{conductor}?fields=hostname,drivers'),
  get('conductor with an unknown field', '/v1/conductors/{conductor}?fields=nope'),
  get('conductor at 1.48', '/v1/conductors/{conductor}', '1.48'),
  get('conductor missing', '/v1/conductors/nope'),
];

const DRIVERS: Step[] = [
  get('drivers', '/v1/drivers'),
  get('drivers at 1.1', '/v1/drivers', '1.1'),
  get('drivers at 1.29', '/v1/drivers', '1.29'),
  get('drivers detail', '/v1/drivers?detail=true'),
  get('drivers detail at 1.29', '/v1/drivers?detail=true', '1.29'),
  get('drivers detail at 1.32', '/v1/drivers?detail=true', '1.32'),
  get('drivers type classic', '/v1/drivers?type=classic'),
  get('drivers type dynamic', '/v1/drivers?type=dynamic'),
  get('drivers type bad', '/v1/drivers?type=bad'),
  get('drivers type at 1.29', '/v1/drivers?type=dynamic', '1.29'),
  get('drivers with fields', '/v1/drivers?fields=name'),
  get('drivers with fields at 1.76', '/v1/drivers?fields=name', '1.76'),
  get('drivers with detail and fields', '/v1/drivers?detail=true&fields=name'),
  get('drivers with an unknown field', '/v1/drivers?fields=nope'),
  get('driver', '/v1/drivers/fake-hardware'),
  get('driver at 1.1', '/v1/drivers/fake-hardware', '1.1'),
  get('driver at 1.37', '/v1/drivers/fake-hardware', '1.37'),
  get('driver with fields', '/v1/drivers/fake-hardware?fields=name,hosts'),
  get('driver with an interface field', '/v1/drivers/fake-hardware?fields=default_power_interface'),
  get('driver missing', '/v1/drivers/nope'),
  get('driver properties', '/v1/drivers/fake-hardware/properties'),
  get('driver properties of a missing driver', '/v1/drivers/nope/properties'),
];

const HISTORY: Step[] = [
  post('create a node for history', { ...FD, name: 'hist1' }, '1.82', { h1: 'uuid' }),
  get('history', '/v1/nodes/hist1/history'),
  get('history by uuid', '/v1/nodes/{h1}/history'),
  get('history at 1.77', '/v1/nodes/hist1/history', '1.77'),
  get('history detail', '/v1/nodes/hist1/history?detail=true'),
  get('history limit 0', '/v1/nodes/hist1/history?limit=0'),
  get('history with a bad marker', '/v1/nodes/hist1/history?marker=bad'),
  get('history with a missing marker', `/v1/nodes/hist1/history?marker=${MISSING}`),
  get('history with fields', '/v1/nodes/hist1/history?fields=uuid'),
  get('history of a missing node', '/v1/nodes/nope/history'),
  get('history event missing', `/v1/nodes/hist1/history/${MISSING}`),
  get('history event not a uuid', '/v1/nodes/hist1/history/bad'),
  get('history event at 1.77', `/v1/nodes/hist1/history/${MISSING}`, '1.77'),
  get('node conductor field', '/v1/nodes/hist1?fields=conductor'),
  get('node conductor field at 1.48', '/v1/nodes/hist1?fields=name', '1.48'),
];

export const CONDUCTORS_DRIVERS_HISTORY: readonly Step[] = [...CONDUCTORS, ...DRIVERS, ...HISTORY];
