/**
 * The requests of the differential corpus about provisioning verbs and their bodies: manual
 * cleaning with fake-hardware's out-of-band BIOS steps (what runs, what fails and how it says so),
 * disable_ramdisk, arguments given to the wrong verb, and the refusals Ironic's conductor makes
 * inside its synchronous RPC call (maintenance, retired). Runs last, on nodes of its own.
 */
import { FD, type Step, V, del, get, patch, post, provision, put, wait } from './corpus-helpers';

const STATES = '/v1/nodes/pv1/states/provision';
const SHOW = '/v1/nodes/pv1?fields=provision_state,target_provision_state,last_error,clean_step,maintenance,maintenance_reason,fault';

const clean = (name: string, body: Record<string, unknown>, version = V): Step => put(name, STATES, { target: 'clean', ...body }, version);

/** A manual clean that fails in the conductor: its last_error, then back to manageable. */
const failedClean = (name: string, steps: unknown[], extra: Record<string, unknown> = {}): Step[] => [
  clean(name, { clean_steps: steps, ...extra }),
  wait('pv1', 'clean failed'),
  get(`${name}: the node`, SHOW),
  provision(`${name}: manage again`, 'pv1', 'manage'),
  wait('pv1', 'manageable'),
];

export const PROVISION: Step[] = [
  post('create for the provision verbs', { ...FD, name: 'pv1' }),
  provision('pv1 manage', 'pv1', 'manage'),
  wait('pv1', 'manageable'),
  clean('clean at 1.14', { clean_steps: [{ interface: 'bios', step: 'factory_reset' }] }, '1.14'),
  clean('clean without steps', {}),
  clean('clean with an empty step list', { clean_steps: [] }),
  clean('clean with steps that are not a list', { clean_steps: 'bios.factory_reset' }),
  clean('clean with a step without its name', { clean_steps: [{ interface: 'bios' }] }),
  // 'boot' names no clean step interface in 21.4 or since (vendor and firmware do since 2023.2).
  clean('clean with an unknown interface', { clean_steps: [{ interface: 'boot', step: 'x' }] }),
  clean('clean with an unknown step key', { clean_steps: [{ interface: 'bios', step: 'factory_reset', priority: 5 }] }),
  clean(
    'clean with disable_ramdisk at 1.69',
    { clean_steps: [{ interface: 'bios', step: 'factory_reset' }], disable_ramdisk: true },
    '1.69',
  ),
  clean('clean with a disable_ramdisk that is no boolean', {
    clean_steps: [{ interface: 'bios', step: 'factory_reset' }],
    disable_ramdisk: 'maybe',
  }),
  put('provide with disable_ramdisk', STATES, { target: 'provide', disable_ramdisk: true }),
  put('provide with disable_ramdisk false', STATES, { target: 'provide', disable_ramdisk: false }),
  put('provide with clean_steps', STATES, { target: 'provide', clean_steps: [{ interface: 'bios', step: 'factory_reset' }] }),
  put('provide with a rescue password', STATES, { target: 'provide', rescue_password: 'p' }),
  put('provide with deploy_steps', STATES, {
    target: 'provide',
    deploy_steps: [{ interface: 'deploy', step: 'deploy', args: {}, priority: 100 }],
  }),
  put('an unknown verb', STATES, { target: 'polish' }),
  put('a body without target', STATES, { clean_steps: [] }),
  put('a body with an unknown argument', STATES, { target: 'provide', colour: 'blue' }),
  get('refusals changed nothing', SHOW),

  clean('clean with a BIOS step', { clean_steps: [{ interface: 'bios', step: 'factory_reset' }] }),
  wait('pv1', 'manageable'),
  get('after a BIOS clean step', SHOW),
  clean('clean with two BIOS steps and args', {
    clean_steps: [
      { interface: 'bios', step: 'apply_configuration', args: { settings: [{ name: 'LogicalProc', value: 'Enabled' }] } },
      { interface: 'bios', step: 'cache_bios_settings' },
    ],
  }),
  wait('pv1', 'manageable'),
  get('after two BIOS clean steps', SHOW),
  ...failedClean('clean with a step the driver lacks', [{ interface: 'deploy', step: 'erase_devices' }]),
  ...failedClean('clean without a required argument', [{ interface: 'bios', step: 'apply_configuration' }]),
  ...failedClean('clean with an unexpected argument', [{ interface: 'bios', step: 'factory_reset', args: { force: true } }]),
  ...failedClean('clean with several bad steps', [
    { interface: 'raid', step: 'delete_configuration' },
    { interface: 'bios', step: 'apply_configuration', args: { settings: [], colour: 'blue' } },
  ]),

  put('maintenance on pv1', '/v1/nodes/pv1/maintenance', { reason: 'repair' }),
  clean('clean in maintenance', { clean_steps: [{ interface: 'bios', step: 'factory_reset' }] }),
  get('clean in maintenance changed nothing', SHOW),
  del('maintenance off pv1', '/v1/nodes/pv1/maintenance'),
  patch('retire pv1', 'pv1', [{ op: 'replace', path: '/retired', value: true }]),
  provision('provide a retired node', 'pv1', 'provide'),
  get('provide of a retired node changed nothing', `${SHOW},retired`),
  patch('unretire pv1', 'pv1', [{ op: 'replace', path: '/retired', value: false }]),
  provision('provide pv1', 'pv1', 'provide'),
  wait('pv1', 'available'),
  del('delete pv1', '/v1/nodes/pv1'),
];
