/**
 * The real `openstack baremetal` client (Debian's python3-openstackclient and python3-ironicclient)
 * as the compat suites run it: against the endpoint of a local stack, noauth unless told otherwise.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface BaremetalOptions {
  /** Extra arguments before the command (e.g. `--os-baremetal-api-version latest`). */
  readonly globalArgs?: readonly string[];
  readonly timeoutMs?: number;
}

/** An error from the client: its message names the command and carries the client's stderr. */
export class BaremetalError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly stderr: string,
  ) {
    super(`openstack baremetal ${args.join(' ')} failed: ${stderr}`);
  }
}

/** `baremetal('node', 'show', 'x')` runs `openstack baremetal node show x`; resolves with its trimmed output. */
export function baremetalClient(endpoint: () => string, options: BaremetalOptions = {}) {
  return async (...args: string[]): Promise<string> => {
    try {
      const { stdout } = await run('openstack', ['baremetal', ...(options.globalArgs ?? []), ...args], {
        env: { ...process.env, OS_AUTH_TYPE: 'none', OS_ENDPOINT: endpoint() },
        timeout: options.timeoutMs ?? 120_000,
      });
      return stdout.trim();
    } catch (err) {
      const e = err as { code?: string; stderr?: string; message: string };
      if (e.code === 'ENOENT')
        throw new Error(
          'The openstack client is not installed: apt-get install python3-openstackclient python3-ironicclient (or run .ci/run)',
        );
      throw new BaremetalError(args, e.stderr ?? e.message);
    }
  };
}
