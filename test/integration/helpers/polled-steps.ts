/** Driving steps that wait on the BMC (firmware update, BIOS apply) on a local stack whose schedules are off. */
import { LambdaHost } from '../../../local/lambda-host';
import type { LocalStack } from '../../../local/stack';
import type { ApiClient } from './stack';

/** Run a periodic task once, as its schedule would, and return its answer. */
export async function runPeriodic(stack: LocalStack, task: string): Promise<Record<string, unknown>> {
  const result = await stack.lambda.invoke(LambdaHost.arn('conductor', 'live'), { entry: 'periodic', task });
  return JSON.parse((result as { payload: string }).payload) as Record<string, unknown>;
}

/**
 * A manual clean whose step waits on the BMC: the node is seen in `clean wait` at that step (`seen`:
 * the node as first seen there), and `poll_waiting_steps` is run every quarter second while it
 * waits there (`runs`: its answers) until the clean ends in `manageable` or `clean failed`.
 */
export async function cleanPolling(stack: LocalStack, api: ApiClient, uuid: string, steps: Record<string, unknown>[]) {
  await api.provision(uuid, 'clean', { clean_steps: steps });
  const deadline = Date.now() + 150_000;
  let seen: Record<string, unknown> | undefined;
  const runs: Record<string, unknown>[] = [];
  for (;;) {
    const node = (await api.get(`/v1/nodes/${uuid}`)).body as Record<string, unknown>;
    if (node.provision_state === 'manageable' || node.provision_state === 'clean failed') return { node, seen, runs };
    const step = node.clean_step as { interface?: string } | null;
    if (node.provision_state === 'clean wait' && step?.interface !== undefined) {
      seen ??= node;
      runs.push(await runPeriodic(stack, 'poll_waiting_steps'));
    }
    if (Date.now() > deadline)
      throw new Error(`node ${uuid} still ${String(node.provision_state)} (last_error: ${String(node.last_error)})`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
