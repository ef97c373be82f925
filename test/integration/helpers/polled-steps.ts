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
 * A provision action whose step waits on the BMC: the node is seen in `wait` at that step (`seen`:
 * the node as first seen there; `waitedAt`: the steps it was seen waiting at), and
 * `poll_waiting_steps` is run every quarter second while it waits there (`runs`: its answers)
 * until the flow ends in one of `ends`; `observe` sees the node each time, before the run.
 */
export async function provisionPolling(
  stack: LocalStack,
  api: ApiClient,
  uuid: string,
  action: {
    target: string;
    body: Record<string, unknown>;
    wait: string;
    stepField: string;
    ends: readonly string[];
    observe?: (node: Record<string, unknown>) => void;
  },
) {
  await api.provision(uuid, action.target, action.body);
  const deadline = Date.now() + 150_000;
  let seen: Record<string, unknown> | undefined;
  const runs: Record<string, unknown>[] = [];
  /** The steps (`interface.step`) the node was seen waiting at, in order. */
  const waitedAt: string[] = [];
  for (;;) {
    const node = (await api.get(`/v1/nodes/${uuid}`)).body as Record<string, unknown>;
    if (action.ends.includes(String(node.provision_state))) return { node, seen, runs, waitedAt };
    const step = node[action.stepField] as { interface?: string; step?: string } | null;
    if (node.provision_state === action.wait && step?.interface !== undefined) {
      seen ??= node;
      const name = `${step.interface}.${String(step.step)}`;
      if (waitedAt.at(-1) !== name) waitedAt.push(name);
      action.observe?.(node);
      runs.push(await runPeriodic(stack, 'poll_waiting_steps'));
    }
    if (Date.now() > deadline)
      throw new Error(`node ${uuid} still ${String(node.provision_state)} (last_error: ${String(node.last_error)})`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** A manual clean whose step waits on the BMC in `clean wait`, polled until it ends (`provisionPolling`). */
export function cleanPolling(
  stack: LocalStack,
  api: ApiClient,
  uuid: string,
  steps: Record<string, unknown>[],
  observe?: (node: Record<string, unknown>) => void,
) {
  return provisionPolling(stack, api, uuid, {
    observe,
    target: 'clean',
    body: { clean_steps: steps },
    wait: 'clean wait',
    stepField: 'clean_step',
    ends: ['manageable', 'clean failed'],
  });
}
