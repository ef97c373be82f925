/**
 * A conductor that dies in the middle of a deploy: the Lambda environment running a step is
 * killed. The steps machine catches the failure, the node ends in `deploy failed` with last_error,
 * and its lock is released — never stuck.
 */
import type { LocalStack } from '../../local/stack';
import { ApiClient, SHORT_STEP_LIMITS, startStack } from './helpers/stack';

let stack: LocalStack;
let api: ApiClient;

beforeAll(async () => {
  // Short timeouts so an expired lock does not take minutes.
  stack = await startStack({ settings: { conductorTimeoutSeconds: 5, stepTimeoutSeconds: 4, lockTtlSeconds: 7, ...SHORT_STEP_LIMITS } });
  api = new ApiClient(stack.url);
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

async function availableNode(name: string): Promise<string> {
  const created = await api.request('POST', '/v1/nodes', { driver: 'fake-hardware', name });
  await api.provision(name, 'manage');
  await api.waitFor(name, 'manageable');
  await api.provision(name, 'provide');
  await api.waitFor(name, 'available');
  return created.body.uuid as string;
}

it('a crash while running a deploy step leaves the node deploy failed, with last_error, unlocked', async () => {
  const uuid = await availableNode('crash-1');
  stack.lambda.injectFault({
    function: 'conductor',
    action: 'crash',
    match: (event) =>
      (event as { entry?: string; action?: string; node?: string }).action === 'run' && (event as { node?: string }).node === uuid,
  });
  await api.provision(uuid, 'active');
  const failed = await api.waitFor(uuid, 'deploy failed');
  expect(failed.target_provision_state).toBe('active');
  expect(failed.last_error).toMatch(
    new RegExp(`^Deploy step deploy.deploy failed on node ${uuid}\\. Runtime\\.ExitError: .*Runtime exited`),
  );
  expect(failed.reservation).toBeNull();
  expect(failed.deploy_step).toEqual({});
  expect(failed.power_state).toBe('power off');
  const execution = stack.sfn.listExecutions(stack.stateMachineArn).find((e) => e.name.includes(uuid.slice(0, 8)));
  // The node is failed by the Failed task; the execution ends right after it.
  for (let i = 0; i < 100 && execution?.status === 'RUNNING'; i++) await new Promise((r) => setTimeout(r, 50));
  expect(execution?.status).toBe('FAILED');
  expect(execution?.history.map((e) => e.state).filter(Boolean)).toContain('Failed');

  // Nothing is stuck: the node can be deployed again, and this time it works.
  await api.provision(uuid, 'active');
  const active = await api.waitFor(uuid, 'active');
  expect(active.last_error).toBeNull();
}, 60_000);

it('a node whose conductor died before handing it to the steps machine is failed once its lock expires', async () => {
  const uuid = await availableNode('crash-2');
  // Every delivery of the deploy message kills the conductor: the node stays deploying, locked.
  // (One crash would not do: the redelivery comes while the message's lock is still live, and deploys.)
  stack.lambda.injectFault({
    function: 'conductor',
    action: 'crash',
    times: 10,
    match: (event) => JSON.stringify(event).includes(uuid) && JSON.stringify(event).includes('do_node_deploy'),
  });
  await api.provision(uuid, 'active');
  const stuck = (await api.get(`/v1/nodes/${uuid}`)).body;
  expect(stuck.provision_state).toBe('deploying');
  // Nothing fails it before its lock expires…
  let result = await stack.lambda.invoke('conductor:live', { entry: 'periodic', task: 'fail_stuck_nodes' });
  expect(JSON.parse(result.payload)).toEqual({ failed: 0 });
  // …and the periodic task fails it once the lock has expired.
  await new Promise((r) => setTimeout(r, (stack.settings.lockTtlSeconds + 1) * 1000));
  result = await stack.lambda.invoke('conductor:live', { entry: 'periodic', task: 'fail_stuck_nodes' });
  expect(JSON.parse(result.payload)).toEqual({ failed: 1 });
  const failed = await api.waitFor(uuid, 'deploy failed');
  expect(failed.last_error).toMatch(/^The deploying state can't be resumed by conductor .*\. Moving to fail state\.$/);
  expect(failed.reservation).toBeNull();
}, 60_000);
