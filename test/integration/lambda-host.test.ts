/**
 * The local Lambda host starts each execution environment as Lambda starts node: with the options
 * the function's NODE_OPTIONS names and nothing of the host's own (tsx's hooks, jest's flags).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
