/**
 * Runbooks: request schemas per microversion (a trait as name below 1.112, any URL-safe name and a
 * description from it, traits never in a create or patch), the view per microversion, and the
 * checks a provision request by runbook makes (the node's approval, steps given twice, the verb).
 */
import { Runbook } from '../../../functions/objects/runbook';
import { RunbookNotFound } from '../../../functions/common/errors';
import { checkDuplicateSteps } from '../../../functions/api/schemas/deploy-template';
import { RUNBOOK_MUTATION_SCHEMA, RUNBOOK_SCHEMA, RUNBOOK_TRAITS_BODY_SCHEMA } from '../../../functions/api/schemas/runbook';
import { validateSchema } from '../../../functions/api/validation';
import { runbookView } from '../../../functions/api/views/runbook';
import { runbookSteps } from '../../../functions/api/runbook-use';
import type { ApiContext } from '../../../functions/api/context';
import type { ApiRequest } from '../../../functions/api/http';
import { makeNode } from '../helpers/builders';

const BASE = 'http://api';
const v = (minor: number) => ({ major: 1, minor });
const T0 = '2026-01-02T03:04:05.120Z';
const STEP = { interface: 'deploy', step: 'erase_devices_metadata', args: {}, order: 1 };

function message(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('did not throw');
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('did not reject');
}

describe('runbook schemas', () => {
  it('below 1.112: the name is a trait, no description, steps need interface, step and order', () => {
    expect(() => validateSchema('runbook', RUNBOOK_SCHEMA, { name: 'CUSTOM_FW', steps: [STEP], public: true })).not.toThrow();
    expect(message(() => validateSchema('runbook', RUNBOOK_SCHEMA, { name: 'fw-update', steps: [STEP] }))).toMatch(
      /^Schema error for runbook: 'fw-update' is not valid under any of the given schemas/,
    );
    expect(message(() => validateSchema('runbook', RUNBOOK_SCHEMA, { name: 'CUSTOM_FW', steps: [STEP], description: 'd' }))).toBe(
      "Schema error for runbook: Additional properties are not allowed ('description' was unexpected)",
    );
    const { order: _order, ...noOrder } = STEP;
    expect(message(() => validateSchema('runbook', RUNBOOK_SCHEMA, { name: 'CUSTOM_FW', steps: [noOrder] }))).toBe(
      "Schema error for runbook: 'order' is a required property",
    );
    expect(message(() => validateSchema('runbook', RUNBOOK_SCHEMA, { name: 'CUSTOM_FW', steps: [{ ...STEP, interface: 'boot' }] }))).toBe(
      "Schema error for runbook: 'boot' is not one of ['vendor', 'power', 'management', 'firmware', 'deploy', 'bios', 'raid']",
    );
    expect(message(() => validateSchema('runbook', RUNBOOK_SCHEMA, { name: 'CUSTOM_FW', steps: [] }))).toBe(
      'Schema error for runbook: [] is too short',
    );
  });

  it('from 1.112: any URL-safe name and a description; traits only through the sub-resource', () => {
    expect(() =>
      validateSchema('runbook', RUNBOOK_MUTATION_SCHEMA, {
        name: 'fw-update_2.1~x',
        description: 'Firmware',
        steps: [{ ...STEP, order: '2' }],
      }),
    ).not.toThrow();
    expect(message(() => validateSchema('runbook', RUNBOOK_MUTATION_SCHEMA, { name: 'a/b', steps: [STEP] }))).toBe(
      "Schema error for runbook: 'a/b' does not match '^[A-Za-z0-9\\\\-._~]+$'",
    );
    expect(message(() => validateSchema('runbook', RUNBOOK_MUTATION_SCHEMA, { name: 'x', steps: [STEP], traits: ['CUSTOM_A'] }))).toBe(
      "Schema error for runbook: Additional properties are not allowed ('traits' was unexpected)",
    );
    expect(message(() => validateSchema('body', RUNBOOK_TRAITS_BODY_SCHEMA, { traits: ['lower'] }))).toMatch(
      /^Schema error for body: 'lower' is not valid under any of the given schemas/,
    );
  });

  it('refuses a step twice, in master’s words', () => {
    expect(message(() => checkDuplicateSteps([STEP, { ...STEP, order: 2 }], 'A template'))).toBe(
      'Deploy template invalid: Duplicate deploy steps. A template cannot have multiple deploy steps with the same interface and step. Duplicates: interface: deploy, step: erase_devices_metadata.',
    );
  });
});

describe('runbook view', () => {
  const runbook = new Runbook({
    uuid: 'r1',
    name: 'CUSTOM_FW',
    description: 'Firmware',
    created_at: T0,
    steps: [{ interface: 'bios', step: 'apply', args: { password: 'x', keep: 1 }, order: 0 }],
    traits: ['CUSTOM_FW', 'CUSTOM_RACK1'],
  });

  it('shows description and traits from 1.112 only, with Ironic’s defaults', () => {
    const at92 = runbookView(runbook, { baseUrl: BASE, version: v(92) });
    expect(Object.keys(at92).sort()).toEqual(
      ['created_at', 'disable_ramdisk', 'extra', 'links', 'name', 'owner', 'public', 'steps', 'updated_at', 'uuid'].sort(),
    );
    expect(at92).toMatchObject({ public: false, owner: null, disable_ramdisk: false, extra: {}, updated_at: null });
    expect(at92.links).toEqual([
      { href: `${BASE}/v1/runbooks/r1`, rel: 'self' },
      { href: `${BASE}/runbooks/r1`, rel: 'bookmark' },
    ]);
    expect(runbookView(runbook, { baseUrl: BASE, version: v(112) })).toMatchObject({
      description: 'Firmware',
      traits: ['CUSTOM_FW', 'CUSTOM_RACK1'],
    });
  });

  it('masks secrets in step arguments and keeps the order', () => {
    expect(runbookView(runbook, { baseUrl: BASE, version: v(92) }).steps).toEqual([
      { interface: 'bios', step: 'apply', args: { password: '******', keep: 1 }, order: 0 },
    ]);
  });

  it('selects fields, refusing one the version does not show', () => {
    expect(runbookView(runbook, { baseUrl: BASE, version: v(112), fields: ['name', 'traits'] })).toEqual({
      name: 'CUSTOM_FW',
      traits: ['CUSTOM_FW', 'CUSTOM_RACK1'],
      links: expect.any(Array),
    });
    expect(message(() => runbookView(runbook, { baseUrl: BASE, version: v(111), fields: ['traits'] }))).toBe(
      'Field(s) "traits" are not valid',
    );
  });
});

describe('provision by runbook', () => {
  const UUID = '7c3d2c6e-1a3b-4c5d-8e9f-0a1b2c3d4e5f';
  const stored = new Runbook({
    uuid: UUID,
    name: 'CUSTOM_FW',
    created_at: T0,
    steps: [{ interface: 'deploy', step: 'erase_devices_metadata', args: {}, order: 0 }],
    traits: ['CUSTOM_RACK1'],
  });
  const runbooks = {
    get: async (uuid: string) => {
      if (uuid === UUID) return stored;
      throw new RunbookNotFound(uuid);
    },
    getByName: async (name: string) => {
      if (name === stored.name) return stored;
      throw new RunbookNotFound(name);
    },
  };
  const ctx = { stores: { runbooks } } as unknown as ApiContext;
  const req = (minor: number) => ({ version: v(minor) }) as ApiRequest;
  const none = { cleanSteps: undefined, serviceSteps: undefined };

  it('below 1.112 approves a node carrying the runbook’s name as a trait', async () => {
    const node = makeNode({ traits: ['CUSTOM_FW'] });
    await expect(runbookSteps(req(92), ctx, node, 'clean', 'CUSTOM_FW', none)).resolves.toEqual({
      cleanSteps: [{ interface: 'deploy', step: 'erase_devices_metadata', args: {} }],
      disableRamdisk: false,
    });
    const other = makeNode({ traits: ['CUSTOM_RACK1'] });
    expect((await rejection(runbookSteps(req(111), ctx, other, 'clean', UUID, none))).message).toBe(
      `This runbook has not been approved for use on this node ${other.uuid}. Please ask an administrator to add it to your node traits.`,
    );
  });

  it('from 1.112 approves a node carrying one of the runbook’s traits', async () => {
    const node = makeNode({ traits: ['CUSTOM_RACK1'] });
    await expect(runbookSteps(req(112), ctx, node, 'service', UUID, none)).resolves.toMatchObject({
      serviceSteps: [{ step: 'erase_devices_metadata' }],
    });
    const named = makeNode({ traits: ['CUSTOM_FW'] });
    expect((await rejection(runbookSteps(req(112), ctx, named, 'service', UUID, none))).message).toBe(
      `This runbook has not been approved for use on this node ${named.uuid}. The node does not have any of the runbook's traits ['CUSTOM_RACK1']. Please ask an administrator to add a matching trait to your node.`,
    );
  });

  it('refuses a runbook without traits from 1.112, steps given twice, other verbs and unknown runbooks', async () => {
    const node = makeNode({ traits: ['CUSTOM_FW', 'CUSTOM_RACK1'] });
    const bare = new Runbook({ ...stored.toData(), traits: [] });
    const bareCtx = { stores: { runbooks: { ...runbooks, get: async () => bare } } } as unknown as ApiContext;
    expect((await rejection(runbookSteps(req(112), bareCtx, node, 'clean', UUID, none))).message).toBe(
      `Runbook ${UUID} has no traits configured. Please ask an administrator to add traits to the runbook.`,
    );
    const steps = [{ interface: 'deploy', step: 'x' }];
    expect((await rejection(runbookSteps(req(92), ctx, node, 'clean', 'CUSTOM_FW', { ...none, cleanSteps: steps }))).message).toBe(
      'Please provide either "clean_steps" or a runbook, but not both.',
    );
    expect((await rejection(runbookSteps(req(92), ctx, node, 'provide', 'CUSTOM_FW', none))).message).toBe(
      `"runbooks" is only valid when setting target provision state to any of ['clean', 'service']`,
    );
    const missing = await rejection(runbookSteps(req(92), ctx, node, 'clean', 'CUSTOM_NONE', none));
    expect(missing).toBeInstanceOf(RunbookNotFound);
    expect(missing.message).toBe('Runbook CUSTOM_NONE could not be found.');
  });
});
