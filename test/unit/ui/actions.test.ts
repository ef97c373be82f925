import { InputError, describeAction, runAction } from '../../../ui/src/actions';
import { expectedVerbs } from '../../../ui/src/states';

const node = { uuid: 'n-1', name: 'web-1', provision_state: 'available', power_state: 'power off', instance_info: {} };

function recorder() {
  const calls: [string, string, unknown][] = [];
  return { calls, request: async (method: string, path: string, body?: unknown) => void calls.push([method, path, body]) };
}

describe('describeAction', () => {
  it('names what will happen to the node', () => {
    expect(describeAction('manage', { ...node, provision_state: 'enroll' })).toContain('Verifies web-1');
    expect(describeAction('undeploy', { ...node, provision_state: 'active' })).toContain('data on its disks is lost');
    expect(describeAction('provide', { ...node, provision_state: 'manageable', automated_clean: false })).toContain('skips cleaning');
    expect(describeAction('power', node, { powerTarget: 'rebooting' })).toContain('power-cycles it');
    expect(describeAction('boot-device', node, { bootDevice: 'pxe', persistent: true })).toContain('pxe, for every boot');
  });
});

describe('runAction', () => {
  it('deploys by setting the image in instance_info, then asking for active with the config drive', async () => {
    const { calls, request } = recorder();
    await runAction(
      'deploy',
      node,
      { imageSource: ' http://images/disk.img ', imageChecksum: 'abc', configDrive: '{"meta_data": {"hostname": "h"}}' },
      request,
    );
    expect(calls).toEqual([
      [
        'PATCH',
        'v1/nodes/n-1',
        [
          { op: 'add', path: '/instance_info/image_source', value: 'http://images/disk.img' },
          { op: 'add', path: '/instance_info/image_checksum', value: 'abc' },
        ],
      ],
      ['PUT', 'v1/nodes/n-1/states/provision', { target: 'active', configdrive: { meta_data: { hostname: 'h' } } }],
    ]);
  });

  it('sends a config drive URL as it is, and none when empty', async () => {
    const { calls, request } = recorder();
    await runAction('deploy', node, { imageSource: 'http://i', configDrive: 'http://drives/cd.gz' }, request);
    await runAction('deploy', node, { imageSource: 'http://i', configDrive: '  ' }, request);
    expect(calls[1]?.[2]).toEqual({ target: 'active', configdrive: 'http://drives/cd.gz' });
    expect(calls[3]?.[2]).toEqual({ target: 'active' });
  });

  it('maps each action to its API call', async () => {
    const { calls, request } = recorder();
    await runAction('undeploy', node, {}, request);
    await runAction('clean', node, { steps: '[{"interface": "deploy", "step": "erase_devices_metadata"}]' }, request);
    await runAction('maintenance-on', node, { reason: ' fan ' }, request);
    await runAction('maintenance-off', node, {}, request);
    await runAction('power', node, { powerTarget: 'power on' }, request);
    await runAction('boot-device', node, { bootDevice: 'pxe' }, request);
    expect(calls).toEqual([
      ['PUT', 'v1/nodes/n-1/states/provision', { target: 'deleted' }],
      ['PUT', 'v1/nodes/n-1/states/provision', { target: 'clean', clean_steps: [{ interface: 'deploy', step: 'erase_devices_metadata' }] }],
      ['PUT', 'v1/nodes/n-1/maintenance', { reason: 'fan' }],
      ['DELETE', 'v1/nodes/n-1/maintenance', undefined],
      ['PUT', 'v1/nodes/n-1/states/power', { target: 'power on' }],
      ['PUT', 'v1/nodes/n-1/management/boot_device', { boot_device: 'pxe', persistent: false }],
    ]);
  });

  it('refuses what it cannot send before asking the API, and passes the API’s refusal on', async () => {
    const { calls, request } = recorder();
    await expect(runAction('deploy', node, { imageSource: '' }, request)).rejects.toBeInstanceOf(InputError);
    await expect(runAction('clean', node, { steps: '{"step": 1}' }, request)).rejects.toThrow('must be a JSON list');
    await expect(runAction('service', node, { steps: '[' }, request)).rejects.toThrow('not valid JSON');
    expect(calls).toEqual([]);
    const refusing = async () => {
      throw new Error('409 locked');
    };
    await expect(runAction('provide', node, {}, refusing)).rejects.toThrow('409 locked');
  });
});

describe('expectedVerbs', () => {
  it("follows Ironic's state machine", () => {
    expect(expectedVerbs('enroll')).toEqual(['manage']);
    expect(expectedVerbs('available')).toEqual(['deploy', 'manage']);
    expect(expectedVerbs('clean failed')).toEqual(['manage']);
    expect(expectedVerbs('deploying')).toEqual([]);
  });
});
