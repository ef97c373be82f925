/**
 * Ironic master's retry of a boot device PATCH an HPE BMC refuses while the system is in POST
 * (`UnableToModifyDuringSystemPOST`), over a stub BMC and fake timers: the schedule of tenacity's
 * `wait_exponential(multiplier=1, min=delay, max=6×delay)`, the last refusal thrown after
 * `post_boot_retry_attempts` tries, other refusals not retried, the one-time fallback after the
 * retries, and the waits stopping before the invocation's deadline.
 */
import { jest } from '@jest/globals';
import { Logger } from '@aws-lambda-powertools/logger';
import type { ManagementInterface, Task } from '../../../functions/drivers/base';
import { guardActions } from '../../../functions/drivers/guard';
import { RedfishRequestError, type RedfishClient, type Resource, extendedMessageIds } from '../../../functions/drivers/redfish/client';
import { type RedfishConfig, loadRedfishConfig } from '../../../functions/drivers/redfish/config';
import { setBootDevice } from '../../../functions/drivers/redfish/management';
import { isDuringPostError, postRetryWaitMs } from '../../../functions/drivers/redfish/post-retry';
import { RedfishSystem } from '../../../functions/drivers/redfish/system';
import { makeNode } from '../helpers/builders';

const S = '/redfish/v1/Systems/1';
const POST_REFUSAL =
  'HTTP PATCH https://bmc/redfish/v1/Systems/1 returned code 400. iLO.2.14.UnableToModifyDuringSystemPOST: The value cannot be changed while the server is in POST. Extended information: [...]';
const postRefusal = () => new RedfishRequestError(POST_REFUSAL, 'http', 'PATCH', S, false, 400);

/**
 * A BMC refusing the next `refusals` boot PATCHes during POST; `refuseContinuous` refuses
 * Continuous (as BMCs without it do) once POST is over. Records each PATCH with the (fake) time.
 */
function setup(opts: { refusals: number; refuseContinuous?: boolean; other?: RedfishRequestError }) {
  let refusals = opts.refusals;
  const patches: { at: number; boot: Resource }[] = [];
  const doc: Resource = { Boot: { BootSourceOverrideEnabled: 'Once', BootSourceOverrideTarget: 'None', BootSourceOverrideMode: 'UEFI' } };
  const client = {
    async get() {
      return structuredClone(doc);
    },
    async patch(_path: string, body: { Boot: Resource }) {
      patches.push({ at: Date.now(), boot: body.Boot });
      if (opts.other) throw opts.other;
      if (refusals > 0) {
        refusals -= 1;
        throw postRefusal();
      }
      if (opts.refuseContinuous && body.Boot.BootSourceOverrideEnabled === 'Continuous') {
        throw new RedfishRequestError('HTTP PATCH returned code 400. Base.1.8.PropertyValueNotInList', 'http', 'PATCH', S, false, 400);
      }
      Object.assign(doc.Boot as Resource, body.Boot);
    },
  } as unknown as RedfishClient;
  const system = new RedfishSystem(client, S, structuredClone(doc));
  const warnings: string[] = [];
  const log = new Logger({ serviceName: 'test', logLevel: 'SILENT' });
  log.warn = ((message: string) => void warnings.push(message)) as typeof log.warn;
  const node = makeNode({ properties: {} });
  const task = { node, log } as unknown as Task;
  return { system, patches, task, node, doc, warnings };
}

const config = (over: Partial<RedfishConfig> = {}) => ({ ...over }) as RedfishConfig;
const management = {} as ManagementInterface;

beforeEach(() => {
  jest.useFakeTimers({ now: 0 });
});
afterEach(() => {
  jest.useRealTimers();
});

/** Run `promise` to its end, moving the fake clock on; its error, if any. */
async function settle(promise: Promise<unknown>): Promise<Error | undefined> {
  let error: Error | undefined;
  let done = false;
  promise.then(
    () => (done = true),
    (err: Error) => ((error = err), (done = true)),
  );
  while (!done) await jest.advanceTimersByTimeAsync(500);
  return error;
}

describe('postRetryWaitMs', () => {
  it('follows tenacity’s wait_exponential(multiplier=1, min=delay, max=6×delay)', () => {
    // Ironic's defaults (delay 5 s): 5, 5, 5, 8, 16 s; then 30 s at most.
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => postRetryWaitMs(n, 5) / 1000)).toEqual([5, 5, 5, 8, 16, 30, 30]);
    expect([1, 2, 3, 4, 5].map((n) => postRetryWaitMs(n, 1) / 1000)).toEqual([1, 2, 4, 6, 6]);
  });
});

describe('loadRedfishConfig', () => {
  it('reads post_boot_retry_attempts and _delay (Ironic’s 6 and 5 s by default, 1 at least)', () => {
    expect(loadRedfishConfig({})).toMatchObject({ postBootRetryAttempts: 6, postBootRetryDelaySeconds: 5 });
    expect(loadRedfishConfig({ REDFISH_POST_BOOT_RETRY_ATTEMPTS: '2', REDFISH_POST_BOOT_RETRY_DELAY: '1' })).toMatchObject({
      postBootRetryAttempts: 2,
      postBootRetryDelaySeconds: 1,
    });
    expect(() => loadRedfishConfig({ REDFISH_POST_BOOT_RETRY_DELAY: '0' })).toThrow(
      'Environment variable REDFISH_POST_BOOT_RETRY_DELAY must be an integer >= 1, got "0"',
    );
  });
});

describe('isDuringPostError', () => {
  it('is a 400 naming UnableToModifyDuringSystemPOST, nothing else', () => {
    expect(isDuringPostError(postRefusal())).toBe(true);
    expect(isDuringPostError(new RedfishRequestError(POST_REFUSAL, 'http', 'PATCH', S, true, 500))).toBe(false);
    expect(
      isDuringPostError(
        new RedfishRequestError('HTTP PATCH returned code 400. Base.1.8.PropertyValueNotInList', 'http', 'PATCH', S, false, 400),
      ),
    ).toBe(false);
    expect(isDuringPostError(new Error(POST_REFUSAL))).toBe(false);
  });

  it('finds the MessageId in the extended info when the message holds only an excerpt of it', () => {
    const body = JSON.stringify({
      error: {
        code: 'iLO.0.10.ExtendedInfo',
        message: 'See @Message.ExtendedInfo for more information.',
        '@Message.ExtendedInfo': [
          { MessageId: 'iLO.2.14.SystemResetRequired', Message: 'x'.repeat(400) },
          { MessageId: 'iLO.2.14.UnableToModifyDuringSystemPOST' },
        ],
      },
    });
    const ids = extendedMessageIds(body);
    expect(ids).toEqual(['iLO.2.14.SystemResetRequired', 'iLO.2.14.UnableToModifyDuringSystemPOST']);
    const cut = new RedfishRequestError('HTTP PATCH returned code 400. iLO.0.10.ExtendedInfo: xxx…', 'http', 'PATCH', S, false, 400, ids);
    expect(isDuringPostError(cut)).toBe(true);
    expect(extendedMessageIds('not json')).toEqual([]);
  });
});

describe('setBootDevice while the BMC is in POST', () => {
  it('tries again after 5, 5 and 5 s (Ironic’s defaults) and succeeds when POST is over', async () => {
    const { system, patches, task, doc, warnings } = setup({ refusals: 3 });
    expect(await settle(setBootDevice(task, system, 'pxe', false, management, config()))).toBeUndefined();
    expect(patches.map((p) => p.at)).toEqual([0, 5_000, 10_000, 15_000]);
    expect(doc.Boot).toMatchObject({ BootSourceOverrideTarget: 'Pxe' });
    expect(warnings).toHaveLength(3);
    expect(warnings[0]).toMatch(/is in POST .* trying again in 5\.0 s \(attempt 1 of 6\)/);
  });

  it('gives up after post_boot_retry_attempts tries with Ironic’s message for the last refusal', async () => {
    const { system, patches, task, node } = setup({ refusals: 10 });
    const error = await settle(setBootDevice(task, system, 'pxe', false, management, config()));
    // 6 tries: 5 waits of 5, 5, 5, 8 and 16 s.
    expect(patches.map((p) => p.at)).toEqual([0, 5_000, 10_000, 15_000, 23_000, 39_000]);
    expect(error?.message).toBe(
      `Redfish exception occurred. Error: Redfish set boot device failed for node ${node.uuid}. Error: ${POST_REFUSAL}`,
    );
  });

  it('takes post_boot_retry_attempts and post_boot_retry_delay from the config', async () => {
    const { system, patches, task } = setup({ refusals: 10 });
    const error = await settle(
      setBootDevice(task, system, 'pxe', false, management, config({ postBootRetryAttempts: 4, postBootRetryDelaySeconds: 1 })),
    );
    expect(patches.map((p) => p.at)).toEqual([0, 1_000, 3_000, 7_000]);
    expect(error?.message).toContain('UnableToModifyDuringSystemPOST');
  });

  it('does not retry any other refusal', async () => {
    const other = new RedfishRequestError('HTTP PATCH returned code 400. Base.1.8.PropertyValueNotInList', 'http', 'PATCH', S, false, 400);
    const { system, patches, task } = setup({ refusals: 0, other });
    const error = await settle(setBootDevice(task, system, 'pxe', false, management, config()));
    expect(patches).toHaveLength(1);
    expect(error?.message).toContain('PropertyValueNotInList');
  });

  it('falls back to a one-time boot when Continuous is refused once POST is over', async () => {
    const { system, patches, task, node, doc } = setup({ refusals: 2, refuseContinuous: true });
    expect(await settle(setBootDevice(task, system, 'disk', true, management, config()))).toBeUndefined();
    expect(patches.map((p) => [p.at, p.boot.BootSourceOverrideEnabled])).toEqual([
      [0, 'Continuous'],
      [5_000, 'Continuous'],
      [10_000, 'Continuous'],
      [10_000, 'Once'],
    ]);
    expect(doc.Boot).toMatchObject({ BootSourceOverrideTarget: 'Hdd', BootSourceOverrideEnabled: 'Once' });
    expect(node.driver_internal_info.redfish_boot_device).toBe('disk');
  });

  it('stops waiting before the invocation’s deadline, with the BMC’s refusal', async () => {
    const { system, patches, task, node } = setup({ refusals: 10 });
    // 22 s left: 10 s are kept for what follows, so waits of 5 and 5 s fit, the third does not.
    guardActions(node, { check: async () => {}, remainingMs: () => 22_000 - Date.now() });
    const error = await settle(setBootDevice(task, system, 'pxe', false, management, config()));
    expect(patches.map((p) => p.at)).toEqual([0, 5_000, 10_000]);
    expect(error?.message).toContain('UnableToModifyDuringSystemPOST');
  });
});
