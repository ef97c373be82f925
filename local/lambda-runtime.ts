/**
 * The Lambda runtime inside one worker thread: it loads a bundle once (the cold start), then runs
 * one invocation at a time, as a Lambda execution environment does. The worker's environment is
 * the published version's frozen environment (see lambda-host.ts).
 *
 * This file is bundled on its own (bin/build.ts) and runs as plain JavaScript in the worker.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';

interface RuntimeData {
  readonly bundle: string;
  readonly handler: string;
  readonly functionName: string;
  readonly functionVersion: string;
  readonly memoryMb: number;
}

interface InvokeMessage {
  readonly id: number;
  readonly event: unknown;
  readonly requestId: string;
  readonly invokedArn: string;
  readonly deadline: number;
}

export interface ErrorPayload {
  readonly errorType: string;
  readonly errorMessage: string;
  readonly trace: string[];
}

const data = workerData as RuntimeData;
const port = parentPort;
if (port === null) throw new Error('lambda-runtime must run in a worker thread');

function toErrorPayload(err: unknown): ErrorPayload {
  if (err instanceof Error) {
    return { errorType: err.name || 'Error', errorMessage: err.message, trace: (err.stack ?? '').split('\n') };
  }
  return { errorType: 'Error', errorMessage: String(err), trace: [] };
}

let handler: (event: unknown, context: unknown) => Promise<unknown>;
try {
  const [file, exportName] = [data.bundle, data.handler.split('.').pop() as string];
  const mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  const fn = mod[exportName];
  if (typeof fn !== 'function') throw new Error(`${data.bundle} does not export a function "${exportName}"`);
  handler = fn as typeof handler;
  port.postMessage({ type: 'ready' });
} catch (err) {
  port.postMessage({ type: 'init-error', error: { ...toErrorPayload(err), errorType: `Runtime.${(err as Error)?.name ?? 'Error'}` } });
  throw err;
}

port.on('message', (message: InvokeMessage) => {
  const context = {
    awsRequestId: message.requestId,
    functionName: data.functionName,
    functionVersion: data.functionVersion,
    invokedFunctionArn: message.invokedArn,
    memoryLimitInMB: String(data.memoryMb),
    logGroupName: `/aws/lambda/${data.functionName}`,
    logStreamName: `local/${data.functionVersion}/${process.pid}`,
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => Math.max(0, message.deadline - Date.now()),
    done() {},
    fail() {},
    succeed() {},
  };
  Promise.resolve()
    .then(() => handler(message.event, context))
    .then(
      (result) => port.postMessage({ type: 'result', id: message.id, ok: true, result: result === undefined ? null : result }),
      (err: unknown) => port.postMessage({ type: 'result', id: message.id, ok: false, error: toErrorPayload(err) }),
    );
});
