/**
 * `ironless local` as an operator runs it: it says it is ready on one line with the URL, serves
 * the API, and on Ctrl-C stops everything it started (DynamoDB Local's Java process included).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../lib/bundling';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function children(pid: number): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

let cli: ChildProcess | undefined;

afterEach(() => {
  if (cli && cli.exitCode === null) cli.kill('SIGKILL');
});

it('says when it is ready, serves the API, and leaves no process behind on Ctrl-C', async () => {
  cli = spawn(
    process.execPath,
    [
      '--disable-warning=ExperimentalWarning',
      '--import',
      'tsx',
      join(PROJECT_ROOT, 'bin/ironless.ts'),
      'local',
      '--in-memory',
      '--port',
      '0',
      '--quiet',
    ],
    {
      cwd: PROJECT_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready in 60 s:\n${out}`)), 60_000);
    cli?.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /Ironless is ready at (http:\/\/127\.0\.0\.1:\d+) /.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1] as string);
      }
    });
    cli?.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    cli?.once('exit', (code) => reject(new Error(`exited with ${code} before ready:\n${out}`)));
  });
  expect(out.trim().split('\n')).toHaveLength(1);
  const root = await fetch(`${url}/`);
  expect(root.status).toBe(200);

  const started = children(cli.pid as number);
  expect(started.length).toBeGreaterThan(0);
  const exited = new Promise<number | null>((resolve) => cli?.once('exit', (code) => resolve(code)));
  cli.kill('SIGINT');
  expect(await exited).toBe(0);
  // Children get a moment to go after their parent.
  for (let i = 0; i < 20 && started.some(alive); i++) await new Promise((r) => setTimeout(r, 100));
  expect(started.filter(alive)).toEqual([]);
  await expect(fetch(`${url}/`)).rejects.toThrow();
}, 90_000);
