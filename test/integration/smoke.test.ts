/** The smoke scenario operators run against a deployment, run here against a local stack. */
import type { LocalStack } from '../../local/stack';
import { runSmoke } from '../smoke/scenario';
import { ApiClient, startStack } from './helpers/stack';

let stack: LocalStack;

beforeAll(async () => {
  stack = await startStack();
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

it('passes against a fresh local stack and leaves no node behind', async () => {
  const lines: string[] = [];
  await runSmoke({ url: stack.url, log: (line) => lines.push(line), timeoutSeconds: 30 });
  expect(lines.some((l) => l.includes('deploy → active'))).toBe(true);
  expect(lines[lines.length - 1]).toBe('Smoke test passed.');
  expect((await new ApiClient(stack.url).get('/v1/nodes')).body.nodes).toEqual([]);
}, 60_000);

it('fails with a message that says what to check when the API is not there', async () => {
  await expect(runSmoke({ url: 'http://127.0.0.1:9', timeoutSeconds: 5 })).rejects.toThrow(
    'Is the stack running, and is the URL its API URL?',
  );
});
