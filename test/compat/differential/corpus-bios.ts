/**
 * The requests of the differential corpus about BIOS settings (API 1.40, registry fields 1.74):
 * fake-hardware's bios interface keeps the settings a manual clean's apply_configuration gives
 * and deletes them on factory_reset; the list, detail, fields and single setting at each version,
 * and the refusals. Runs last, on a node of its own.
 */
import { FD, MISSING, type Step, V, del, get, post, provision, put, wait } from './corpus-helpers';

const BIOS = '/v1/nodes/bs1/bios';
const STATES = '/v1/nodes/bs1/states/provision';
const clean = (name: string, steps: unknown[]): Step => put(name, STATES, { target: 'clean', clean_steps: steps });

export const BIOS_STEPS: Step[] = [
  post('create for BIOS', { ...FD, name: 'bs1' }),
  get('BIOS settings of a node that has none', BIOS),
  provision('bs1 manage', 'bs1', 'manage'),
  wait('bs1', 'manageable'),
  clean('apply BIOS settings', [
    {
      interface: 'bios',
      step: 'apply_configuration',
      args: {
        settings: [
          { name: 'ProcTurboMode', value: 'Disabled' },
          { name: 'NumLock', value: 'On' },
        ],
      },
    },
  ]),
  wait('bs1', 'manageable'),
  get('BIOS settings', BIOS),
  get('BIOS settings at 1.40', BIOS, '1.40'),
  get('BIOS settings at 1.39', BIOS, '1.39'),
  get('BIOS settings in detail at 1.74', `${BIOS}?detail=True`, '1.74'),
  get('BIOS settings with fields at 1.74', `${BIOS}?fields=name,read_only`, '1.74'),
  get('BIOS settings with detail before 1.74', `${BIOS}?detail=True`, '1.73'),
  get('BIOS settings with detail=False before 1.74', `${BIOS}?detail=False`, '1.73'),
  get('BIOS settings with fields before 1.74', `${BIOS}?fields=name`, '1.73'),
  get('BIOS settings with detail and fields', `${BIOS}?detail=True&fields=name`, '1.74'),
  get('BIOS settings with a bad detail', `${BIOS}?detail=maybe`, '1.74'),
  get('BIOS settings with an unknown argument', `${BIOS}?colour=blue`),
  get('BIOS settings of an unknown node', `/v1/nodes/${MISSING}/bios`),
  get('one BIOS setting', `${BIOS}/ProcTurboMode`),
  get('one BIOS setting at 1.74', `${BIOS}/ProcTurboMode`, '1.74'),
  get('one BIOS setting at 1.39', `${BIOS}/ProcTurboMode`, '1.39'),
  get('an unknown BIOS setting', `${BIOS}/Nope`),
  get('a BIOS setting of an unknown node', `/v1/nodes/${MISSING}/bios/ProcTurboMode`),
  get('a BIOS setting with an argument', `${BIOS}/NumLock?fields=name`),
  clean('apply other BIOS settings', [
    { interface: 'bios', step: 'apply_configuration', args: { settings: [{ name: 'NumLock', value: 'Off' }] } },
  ]),
  wait('bs1', 'manageable'),
  get('BIOS settings replaced by the next apply', BIOS),
  clean('factory reset the BIOS', [{ interface: 'bios', step: 'factory_reset' }]),
  wait('bs1', 'manageable'),
  get('BIOS settings after a factory reset', BIOS),
  del('delete bs1', '/v1/nodes/bs1'),
  get('BIOS settings of a node that is gone', BIOS, V),
];
