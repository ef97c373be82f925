import { AgentAPIError, AgentClient, AgentConnectionFailed, AgentInProgress } from '../../../functions/drivers/agent-client';
import { imageInfo, imageUrl, validateImageSource } from '../../../functions/drivers/agent/image-source';
import { configdriveImage } from '../../../functions/drivers/configdrive';
import { S3Client } from '@aws-sdk/client-s3';
import { makeNode } from '../helpers/builders';
import { FakeIpa } from '../helpers/fake-ipa';

let ipa: FakeIpa;
beforeEach(async () => {
  ipa = await new FakeIpa().start();
});
afterEach(async () => {
  await ipa.stop();
});

function agentNode(token = ipa.token) {
  return makeNode({ driver_internal_info: { agent_url: ipa.url, agent_secret_token: token } });
}

const client = (attempts = 3, commandTimeoutMs = 2000) => new AgentClient({ commandTimeoutMs, attempts, retryIntervalMs: 1 });

describe('the agent command client', () => {
  it('sends the token and the wait flag, and reads the commands back', async () => {
    const node = agentNode();
    const reply = await client().command(node, 'deploy.get_deploy_steps', { node: {} }, true);
    expect(reply).toMatchObject({ command_name: 'get_deploy_steps', command_status: 'SUCCEEDED' });
    const started = await client().command(node, 'deploy.execute_deploy_step', { step: { interface: 'deploy', step: 'x' } });
    expect(started.command_status).toBe('RUNNING');
    const last = await client().lastCommand(node, ['deploy.execute_deploy_step']);
    expect(last).toMatchObject({ command_name: 'execute_deploy_step', command_status: 'RUNNING' });
  });

  it('retries a busy agent (409) and gives up with AgentInProgress after its attempts', async () => {
    const node = agentNode();
    ipa.busyReplies = 2;
    await expect(client(3).command(node, 'standby.sync', {}, true)).resolves.toMatchObject({ command_status: 'SUCCEEDED' });
    ipa.busyReplies = 5;
    const err = await client(2)
      .command(node, 'standby.sync', {}, true)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AgentInProgress);
    expect((err as Error).message).toBe(
      `Node ${node.uuid} command "standby.sync" failed. Agent is presently executing a command. Error Agent is busy`,
    );
  });

  it('fails with AgentAPIError on a wrong token (401), not retried', async () => {
    const node = agentNode('wrong');
    const err = await client()
      .command(node, 'standby.sync', {}, true)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AgentAPIError);
    expect((err as Error).message).toBe(
      `Agent API for node ${node.uuid} returned HTTP status code 401 with error: Invalid or missing agent token received.`,
    );
    expect(ipa.requests).toHaveLength(1);
  });

  it('times out on a hung agent', async () => {
    ipa.hang = true;
    const err = await client(1, 200)
      .commandsStatus(agentNode())
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AgentConnectionFailed);
  });
});

describe('image sources', () => {
  it('needs a source and a checksum for URLs, as Ironic', () => {
    expect(() => validateImageSource(makeNode({ instance_info: {} }))).toThrow(
      /Some parameters were missing. Missing are: \['instance_info.image_source'\]/,
    );
    expect(() => validateImageSource(makeNode({ instance_info: { image_source: 'http://x/img' } }))).toThrow(
      /image_source's "image_checksum", or "image_os_hash_algo" and "image_os_hash_value" must be provided/,
    );
    expect(() =>
      validateImageSource(
        makeNode({ instance_info: { image_source: 'http://x/img', image_os_hash_algo: 'sha256', image_os_hash_value: 'ab' } }),
      ),
    ).not.toThrow();
    expect(() => validateImageSource(makeNode({ instance_info: { image_source: 's3://bucket', image_checksum: 'ab' } }))).toThrow(
      /s3:\/\/bucket\/key/,
    );
  });

  it('takes s3:// sources only from the allowed buckets, and none by default', () => {
    const node = makeNode({ instance_info: { image_source: 's3://images/os/disk.raw', image_checksum: 'ab' } });
    expect(() => validateImageSource(node)).toThrow(/S3 bucket "images", which this deployment does not allow \(none is allowed\)/);
    expect(() => validateImageSource(node, ['other'])).toThrow(/does not allow \(allowed: other\); .* setting imageBuckets/);
    expect(() => validateImageSource(node, ['other', 'images'])).not.toThrow();
    // The bucket is the host part only: a key that names an allowed bucket does not count.
    const sneaky = makeNode({ instance_info: { image_source: 's3://evil/images/disk.raw', image_checksum: 'ab' } });
    expect(() => validateImageSource(sneaky, ['images'])).toThrow(/S3 bucket "evil"/);
  });

  it('turns s3://bucket/key into a presigned GET URL and hands the checksum and configdrive to the agent', async () => {
    const s3 = new S3Client({ region: 'eu-west-1', credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' } });
    const url = await imageUrl('s3://images/os/disk.raw', s3);
    expect(url).toMatch(/^https:\/\/images\.s3\.eu-west-1\.amazonaws\.com\/os\/disk\.raw\?/);
    expect(new URL(url).searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    expect(await imageUrl('https://example/disk.raw')).toBe('https://example/disk.raw');
    const node = makeNode({ instance_info: { image_source: 's3://images/os/disk.raw', image_checksum: 'abc', configdrive: 'H4sI...' } });
    expect(imageInfo(node, url, configdriveImage(node))).toMatchObject({
      id: 'disk.raw',
      urls: [url],
      checksum: 'abc',
      configdrive: 'H4sI...',
      stream_raw_images: true,
    });
  });
});
