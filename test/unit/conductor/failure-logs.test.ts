/**
 * When a failing flow asks the agent for its logs (Ironic's set_failed_state and step failure
 * handlers collect; its timeout handling does not): a failure with the agent running asks it for
 * `log.collect_system_logs` before the node is failed; a wait that timed out (the agent went
 * silent) does not ask, so the failure path spends no time on a dead agent.
 */
import { failFlow } from '../../../functions/conductor/flows/failure';
import { failSteps } from '../../../functions/conductor/flows/run-steps';
import { makeConductorContext, makeNode } from '../helpers/builders';
import { FakeIpa } from '../helpers/fake-ipa';

// The conductor's environment, read when logs are first collected: a bucket (on a port nobody
// listens on: storing fails and is logged), and agents on loopback allowed.
Object.assign(process.env, {
  LOGS_BUCKET: 'ramdisk-logs',
  BMC_DENIED_HOSTS: '',
  AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:9',
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'local',
  AWS_SECRET_ACCESS_KEY: 'local',
});

let ipa: FakeIpa;
beforeEach(async () => {
  ipa = await new FakeIpa().start();
  ipa.systemLogs = Buffer.from('not read').toString('base64');
});
afterEach(async () => {
  await ipa.stop();
});

async function deployingWithAgent(ctx: ReturnType<typeof makeConductorContext>) {
  return ctx.nodes.create(
    makeNode({
      provision_state: 'wait call-back',
      target_provision_state: 'active',
      driver_internal_info: { agent_url: ipa.url, agent_secret_token: ipa.token, steps_owner: 'run:a' },
    }),
  );
}

it('asks a running agent for its logs when a flow fails, and still fails the node', async () => {
  const ctx = makeConductorContext();
  const node = await deployingWithAgent(ctx);
  await failFlow(ctx, await ctx.nodes.reserve(node.uuid, { host: 'conductor:1', token: 'run:a', ttlSeconds: 60 }), 'deploy', 'boom');
  expect(ipa.requests.map((r) => r.name)).toEqual(['log.collect_system_logs']);
  expect(await ctx.nodes.get(node.uuid)).toMatchObject({ provision_state: 'deploy failed', last_error: 'boom', reservation: null });
});

it.each(['States.HeartbeatTimeout', 'States.Timeout'])('does not ask the agent after %s', async (error) => {
  const ctx = makeConductorContext();
  const node = await deployingWithAgent(ctx);
  await failSteps(ctx, { flow: 'deploy', node: node.uuid, owner: 'run:a', error: { Error: error } });
  expect(ipa.requests).toEqual([]);
  expect(await ctx.nodes.get(node.uuid)).toMatchObject({ provision_state: 'deploy failed', reservation: null });
});

it('asks it when a step failed otherwise', async () => {
  const ctx = makeConductorContext();
  const node = await deployingWithAgent(ctx);
  await failSteps(ctx, { flow: 'deploy', node: node.uuid, owner: 'run:a', error: { Error: 'Error', Cause: 'disk on fire' } });
  expect(ipa.requests.map((r) => r.name)).toEqual(['log.collect_system_logs']);
  expect(await ctx.nodes.get(node.uuid)).toMatchObject({ provision_state: 'deploy failed', reservation: null });
});
