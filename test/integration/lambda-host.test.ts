/**
 * The local Lambda host starts each execution environment as Lambda starts node: with the options
 * the function's NODE_OPTIONS names and nothing of the host's own (tsx's hooks, jest's flags).
 * Faults injected into invocations behave as Lambda: a timeout after the handler did its work,
 * a crash before it ran.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LambdaHost } from '../../local/lambda-host';

let dir: string;
let host: LambdaHost;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ironless-host-'));
  writeFileSync(join(dir, 'index.mjs'), 'export const handler = async () => ({ execArgv: process.execArgv });\n');
  host = new LambdaHost({ runtimeFile: join(process.env.IRONLESS_BUILD_DIR as string, 'runtime.mjs'), codeDir: join(dir, 'code') });
});

afterAll(async () => {
  await host.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function execArgvOf(name: string, env: Record<string, string>): Promise<unknown> {
  host.createFunction({ name, bundle: join(dir, 'index.mjs'), handler: 'index.handler', env, timeoutSeconds: 10 });
  host.setAlias(name, 'live', host.publishVersion(name));
  const result = await host.invoke(LambdaHost.arn(name, 'live'), {});
  expect(result.functionError).toBeUndefined();
  return (JSON.parse(result.payload) as { execArgv: unknown }).execArgv;
}

describe('execution environments', () => {
  it('run node with the flags of the function’s NODE_OPTIONS', async () => {
    expect(await execArgvOf('with-options', { NODE_OPTIONS: '--enable-source-maps  --trace-warnings' })).toEqual([
      '--enable-source-maps',
      '--trace-warnings',
    ]);
  });

  it('run node with no flags when the function names none, whatever the host runs with', async () => {
    expect(await execArgvOf('without-options', {})).toEqual([]);
  });
});

describe('injected faults', () => {
  let marker: string;
  beforeAll(() => {
    marker = join(dir, 'ran');
    // Does its work (a file), then answers 100 ms later.
    writeFileSync(
      join(dir, 'slow.mjs'),
      `import { writeFileSync } from 'node:fs';\n` +
        `export const handler = async (event) => { writeFileSync(event.marker, 'done'); await new Promise((r) => setTimeout(r, 100)); return { ok: true }; };\n`,
    );
    host.createFunction({ name: 'slow', bundle: join(dir, 'slow.mjs'), handler: 'index.handler', env: {}, timeoutSeconds: 10 });
    host.setAlias('slow', 'live', host.publishVersion('slow'));
  });

  it('time an invocation out as Lambda does (Sandbox.Timedout) after its handler did its work, and lose its answer', async () => {
    host.injectFault({ function: 'slow', action: 'timeout', afterMs: 400 });
    const started = Date.now();
    const result = await host.invoke(LambdaHost.arn('slow', 'live'), { marker });
    expect(result.functionError).toBe('Unhandled');
    expect(JSON.parse(result.payload)).toMatchObject({
      errorType: 'Sandbox.Timedout',
      errorMessage: expect.stringMatching(/Task timed out after 10\.00 seconds$/),
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(390);
    expect(readFileSync(marker, 'utf8')).toBe('done');
    expect(host.injectedFaults.get('timeout')).toBe(1);
    // The environment is gone; the next invocation gets a fresh one and its answer.
    rmSync(marker);
    const next = await host.invoke(LambdaHost.arn('slow', 'live'), { marker });
    expect(next.functionError).toBeUndefined();
    expect(JSON.parse(next.payload)).toEqual({ ok: true });
  });

  it('crash an invocation before its handler runs (Runtime.ExitError)', async () => {
    rmSync(marker, { force: true });
    host.injectFault({ function: 'slow', action: 'crash' });
    const result = await host.invoke(LambdaHost.arn('slow', 'live'), { marker });
    expect(JSON.parse(result.payload)).toMatchObject({ errorType: 'Runtime.ExitError' });
    expect(existsSync(marker)).toBe(false);
  });
});
