/**
 * The requests of the differential corpus for node management and VIFs: boot device (+supported),
 * inject NMI, boot mode and secure boot (with the last_error fake-hardware leaves), and VIFs on the
 * `noop` network interface, at the microversions around their introduction, with their errors.
 */
import { FD, MISSING, type Step, V, del, get, post, put } from './corpus-helpers';

const BOOT = '/v1/nodes/mg1/management/boot_device';

const BOOT_DEVICE: Step[] = [
  post('create for management', { ...FD, name: 'mg1' }, V, { mg1: 'uuid' }),
  get('boot device', BOOT),
  get('boot device by uuid at 1.1', '/v1/nodes/{mg1}/management/boot_device', '1.1'),
  get('supported boot devices', `${BOOT}/supported`),
  get('boot device of an unknown node', `/v1/nodes/${MISSING}/management/boot_device`),
  get('boot device with a query argument', `${BOOT}?x=1`),
  put('set boot device', BOOT, { boot_device: 'pxe' }),
  put('set boot device persistent', BOOT, { boot_device: 'pxe', persistent: true }),
  put('set boot device persistent as a string', BOOT, { boot_device: 'pxe', persistent: 'yes' }),
  put('set an unsupported boot device', BOOT, { boot_device: 'disk' }),
  put('set a made-up boot device', BOOT, { boot_device: 'teleport' }),
  put('set boot device without one', BOOT, {}),
  put('set boot device without a body', BOOT),
  put('set boot device to a number', BOOT, { boot_device: 5 }),
  put('set boot device with a bad persistent', BOOT, { boot_device: 'pxe', persistent: 'maybe' }),
  put('set boot device with an unexpected argument', BOOT, { boot_device: 'pxe', when: 'now' }),
  put('set boot device on an unknown node', `/v1/nodes/${MISSING}/management/boot_device`, { boot_device: 'pxe' }),
  { name: 'boot device with POST', method: 'POST', path: BOOT, body: { boot_device: 'pxe' }, version: V },
];

const NMI: Step[] = [
  put('inject nmi at 1.28', '/v1/nodes/mg1/management/inject_nmi', undefined, '1.28'),
  put('inject nmi at 1.29', '/v1/nodes/mg1/management/inject_nmi', undefined, '1.29'),
  put('inject nmi', '/v1/nodes/mg1/management/inject_nmi'),
  put('inject nmi on an unknown node', `/v1/nodes/${MISSING}/management/inject_nmi`),
  get('inject nmi with GET', '/v1/nodes/mg1/management/inject_nmi'),
];

const STATES = '/v1/nodes/mg2/states';

const BOOT_MODE: Step[] = [
  post('create for boot mode', { ...FD, name: 'mg2' }, V, { mg2: 'uuid' }),
  put('boot mode at 1.75', `${STATES}/boot_mode`, { target: 'uefi' }, '1.75'),
  put('boot mode to a made-up mode', `${STATES}/boot_mode`, { target: 'efi' }),
  put('boot mode without a target', `${STATES}/boot_mode`, {}),
  put('boot mode to a number', `${STATES}/boot_mode`, { target: 5 }),
  put('boot mode with an unexpected argument', `${STATES}/boot_mode`, { target: 'uefi', now: true }),
  put('boot mode of an unknown node', `/v1/nodes/${MISSING}/states/boot_mode`, { target: 'uefi' }),
  put('boot mode to uefi', `${STATES}/boot_mode`, { target: 'uefi' }),
  {
    name: 'wait for the boot mode error',
    method: 'GET',
    path: '/v1/nodes/mg2',
    version: V,
    waitFor: 'enroll',
    until: (n) => n.reservation === null && typeof n.last_error === 'string' && n.last_error.includes('boot mode'),
  },
  get('node after boot mode', '/v1/nodes/mg2?fields=boot_mode,secure_boot,last_error,reservation'),
  get('states after boot mode', STATES),
  get('states at 1.74', STATES, '1.74'),
  put('secure boot at 1.75', `${STATES}/secure_boot`, { target: true }, '1.75'),
  put('secure boot to a non-boolean', `${STATES}/secure_boot`, { target: 'x' }),
  put('secure boot without a target', `${STATES}/secure_boot`, {}),
  put('secure boot to null', `${STATES}/secure_boot`, { target: null }),
  put('secure boot on', `${STATES}/secure_boot`, { target: 'true' }),
  {
    name: 'wait for the secure boot error',
    method: 'GET',
    path: '/v1/nodes/mg2',
    version: V,
    waitFor: 'enroll',
    until: (n) => n.reservation === null && typeof n.last_error === 'string' && n.last_error.includes('secure_boot'),
  },
  get('node after secure boot', '/v1/nodes/mg2?fields=boot_mode,secure_boot,last_error,reservation'),
];

const VIFS: Step[] = [
  get('vifs at 1.27', '/v1/nodes/mg1/vifs', '1.27'),
  get('vifs', '/v1/nodes/mg1/vifs'),
  get('vifs of an unknown node', `/v1/nodes/${MISSING}/vifs`),
  { name: 'attach a vif', method: 'POST', path: '/v1/nodes/mg1/vifs', body: { id: 'vif-1' }, version: V },
  { name: 'attach a vif with extra keys', method: 'POST', path: '/v1/nodes/mg1/vifs', body: { id: 'vif-2', foo: 'bar' }, version: V },
  { name: 'attach a vif at 1.27', method: 'POST', path: '/v1/nodes/mg1/vifs', body: { id: 'vif-3' }, version: '1.27' },
  { name: 'attach a vif without an id', method: 'POST', path: '/v1/nodes/mg1/vifs', body: {}, version: V },
  { name: 'attach a vif with a number id', method: 'POST', path: '/v1/nodes/mg1/vifs', body: { id: 5 }, version: V },
  { name: 'attach a vif with a bad id', method: 'POST', path: '/v1/nodes/mg1/vifs', body: { id: 'bad id' }, version: V },
  {
    name: 'attach a vif to a port and a portgroup',
    method: 'POST',
    path: '/v1/nodes/mg1/vifs',
    body: { id: 'vif-4', port_uuid: MISSING, portgroup_uuid: MISSING },
    version: V,
  },
  { name: 'attach a vif without a body', method: 'POST', path: '/v1/nodes/mg1/vifs', version: V },
  { name: 'attach a vif to an unknown node', method: 'POST', path: `/v1/nodes/${MISSING}/vifs`, body: { id: 'v' }, version: V },
  get('vifs after attach', '/v1/nodes/mg1/vifs'),
  del('detach a vif', '/v1/nodes/mg1/vifs/vif-1'),
  del('detach a vif at 1.27', '/v1/nodes/mg1/vifs/vif-1', '1.27'),
  del('detach a vif with a bad id', '/v1/nodes/mg1/vifs/bad%20id'),
  del('detach a vif from an unknown node', `/v1/nodes/${MISSING}/vifs/vif-1`),
];

const CLEANUP: Step[] = [del('delete the management node', '/v1/nodes/mg1'), del('delete the boot mode node', '/v1/nodes/mg2')];

export const MANAGEMENT: Step[] = [...BOOT_DEVICE, ...NMI, ...BOOT_MODE, ...VIFS, ...CLEANUP];
