/**
 * Start and stop a real Ironic 21.4 (test/compat/reference/ironic.sh) from TypeScript: the
 * differential compat suite uses it with SQLite, the peer benchmark with MariaDB.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../../lib/bundling';

const run = promisify(execFile);
export const IRONIC_SCRIPT = join(PROJECT_ROOT, 'test/compat/reference/ironic.sh');

export interface IronicOptions {
  /** Ironic's database in a MariaDB server of its own (IRONIC_DB=mariadb) rather than SQLite. */
  readonly mariadb?: boolean;
  /** Appended to ironic.conf (IRONIC_EXTRA_CONF): later values win. */
  readonly extraConf?: string;
}

export interface ReferenceIronic {
  readonly url: string;
  /** Its state folder (configuration, logs, database). */
  readonly dir: string;
  /** The MariaDB server's Unix socket (with `mariadb: true`). */
  readonly mariadbSocket?: string;
  stop(): Promise<void>;
}

/** Start a reference Ironic on `port` (and port + 1000 for its JSON-RPC); resolves when it answers. */
export async function startIronic(port: number, options: IronicOptions = {}): Promise<ReferenceIronic> {
  const dir = mkdtempSync(join(tmpdir(), 'ironic-ref-'));
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (options.mariadb) env.IRONIC_DB = 'mariadb';
  if (options.extraConf !== undefined) env.IRONIC_EXTRA_CONF = options.extraConf;
  const stop = async () => {
    await run('bash', [IRONIC_SCRIPT, 'stop', dir]).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const { stdout } = await run('bash', [IRONIC_SCRIPT, 'start', dir, String(port)], { timeout: 180_000, env });
    return {
      url: stdout.trim().split('\n').pop() as string,
      dir,
      ...(options.mariadb ? { mariadbSocket: join(dir, 'mysql', 'mysqld.sock') } : {}),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
