/**
 * Start the browser tests' stack (`stack.ts`, in a process of its own through tsx) and hand its
 * address to the tests (IRONLESS_UI_STACK); the returned function stops it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export default async function globalSetup(): Promise<() => Promise<void>> {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', '--disable-warning=ExperimentalWarning', join(root, 'test/ui/stack.ts')],
    {
      cwd: root,
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const line = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the browser tests' stack exited (${String(code)}) before it was ready`)));
  });
  process.env.IRONLESS_UI_STACK = line;
  return async () => {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
}
