/**
 * A function's own cost, apart from the local stack's emulation of Lambda: its bundle loaded in a
 * child process with the environment it is published with, invoked one event at a time as one
 * execution environment runs it, against the stack's DynamoDB Local. CPU per invocation here is
 * what Lambda bills for; the rest of a request's CPU on the local stack belongs to the emulator
 * (worker threads, the gateway) and to DynamoDB Local.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUNDLE_FILE, FUNCTION_NODE_OPTIONS, type FunctionName } from '../../lib/bundling';

export interface AloneResult {
  readonly invocations: number;
  readonly perSecond: number;
  readonly cpuMsPerInvocation: number;
}

/** The child: invoke the handler `total` times (after `warmup` unmeasured ones) and print the figures. */
const CHILD = `
const [bundle, eventsFile, resultFile, total, warmup] = process.argv.slice(1);
const fs = await import('node:fs');
const { handler } = await import(bundle);
const events = JSON.parse(fs.readFileSync(eventsFile, 'utf8'));
const context = { awsRequestId: 'bench', functionName: 'bench', functionVersion: '1', invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:bench', memoryLimitInMB: '512', getRemainingTimeInMillis: () => 30000 };
const run = async (i) => {
  const result = await handler(events[i % events.length], context);
  if (!result || result.statusCode >= 300) throw new Error('invocation ' + i + ' answered ' + JSON.stringify(result));
};
for (let i = 0; i < Number(warmup); i++) await run(i);
const cpu = process.cpuUsage();
const started = performance.now();
for (let i = 0; i < Number(total); i++) await run(Number(warmup) + i);
const seconds = (performance.now() - started) / 1000;
const used = process.cpuUsage(cpu);
fs.writeFileSync(resultFile, JSON.stringify({ seconds, cpuMicros: used.user + used.system }));
`;

export async function runFunctionAlone(options: {
  readonly buildDir: string;
  readonly name: FunctionName;
  readonly env: Readonly<Record<string, string>>;
  /** Invoked in turn, round robin (distinct events where a repeated one would fail, as a second create of a name). */
  readonly events: readonly unknown[];
  readonly invocations: number;
  readonly warmup: number;
}): Promise<AloneResult> {
  const bundle = join(options.buildDir, options.name, BUNDLE_FILE);
  const dir = mkdtempSync(join(tmpdir(), 'ironless-bench-'));
  const eventsFile = join(dir, 'events.json');
  // The function's own log lines go to stdout, as on Lambda: the figures come back in a file.
  const resultFile = join(dir, 'result.json');
  writeFileSync(eventsFile, JSON.stringify(options.events));
  const args = [
    ...FUNCTION_NODE_OPTIONS.split(' '),
    '--input-type=module',
    '-e',
    CHILD,
    bundle,
    eventsFile,
    resultFile,
    String(options.invocations),
    String(options.warmup),
  ];
  const child = spawn(process.execPath, args, {
    // As Lambda sets it: only the published environment and the runtime's own variables.
    env: { PATH: process.env.PATH ?? '', AWS_REGION: 'us-east-1', AWS_LAMBDA_FUNCTION_NAME: options.name, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stdout.resume();
  child.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    if (code !== 0) throw new Error(`the ${options.name} function alone exited with ${code}:\n${err}`);
    const { seconds, cpuMicros } = JSON.parse(readFileSync(resultFile, 'utf8')) as { seconds: number; cpuMicros: number };
    return {
      invocations: options.invocations,
      perSecond: Number((options.invocations / seconds).toFixed(1)),
      cpuMsPerInvocation: Number((cpuMicros / 1000 / options.invocations).toFixed(3)),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
