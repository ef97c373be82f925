/**
 * What the peer benchmark drives both APIs with: one HTTP client (node:http over keep-alive, as
 * the API bench's load generator) and, for the real Ironic, a session of the `mariadb` command-line
 * client on its database (fleet inserts, and watching deploys without going through the API).
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { Agent, type IncomingMessage, request } from 'node:http';

export const API_VERSION = '1.82';
const HEADERS = { 'X-OpenStack-Ironic-API-Version': API_VERSION, 'Content-Type': 'application/json', Connection: 'keep-alive' };

export class HttpError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** A JSON client of one API base URL, `maxSockets` connections kept alive. */
export class ApiClient {
  private readonly agent: Agent;
  /** Requests sent again: a 503 (Ironic's "no free conductor worker") or a kept-alive connection the server had closed. */
  retries = 0;

  constructor(
    readonly baseUrl: string,
    maxSockets: number,
  ) {
    this.agent = new Agent({ keepAlive: true, maxSockets });
  }

  /** `path` is a path on the base URL, or an absolute URL (a `next` link). */
  async call(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.once(method, path, body);
      } catch (err) {
        const retriable = err instanceof HttpError ? err.status === 503 : (err as { retriable?: boolean }).retriable === true;
        if (!retriable || attempt >= 50) throw err;
        this.retries++;
        await new Promise((r) => setTimeout(r, err instanceof HttpError ? 50 : 0));
      }
    }
  }

  private once(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
    const url = path.startsWith('http') ? path : `${this.baseUrl}${path}`;
    const data = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = request(url, { method, headers: HEADERS, agent: this.agent }, (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const status = res.statusCode ?? 0;
          if (status >= 300) reject(new HttpError(`${method} ${url}: ${status} ${text.slice(0, 500)}`, status));
          else resolve(text ? (JSON.parse(text) as Record<string, unknown>) : {});
        });
      });
      req.on('error', (err) => {
        // A request on a kept-alive connection the server closed meanwhile never reached it.
        if (req.reusedSocket && (err as NodeJS.ErrnoException).code === 'ECONNRESET') Object.assign(err, { retriable: true });
        reject(err);
      });
      req.end(data);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

const END = '__peer_bench_end__';

/** One `mariadb` client process on a database, statements sent one at a time, rows as tab-separated fields. */
export class MariaDbSession {
  private readonly proc: ChildProcessWithoutNullStreams;
  private buffer = '';
  private stderr = '';
  private pending: { resolve: (rows: string[][]) => void; reject: (err: Error) => void } | undefined;
  private queue = Promise.resolve();

  constructor(socket: string, database: string) {
    this.proc = spawn('mariadb', [
      '--no-defaults',
      `--socket=${socket}`,
      '-uroot',
      '--batch',
      '--skip-column-names',
      '--unbuffered',
      database,
    ]);
    this.proc.stdout.setEncoding('utf8');
    this.proc.stdout.on('data', (chunk: string) => {
      this.buffer += chunk;
      const at = this.buffer.indexOf(`${END}\n`);
      if (at < 0 || this.pending === undefined) return;
      const text = this.buffer.slice(0, at);
      this.buffer = this.buffer.slice(at + END.length + 1);
      const rows =
        text === ''
          ? []
          : text
              .replace(/\n$/, '')
              .split('\n')
              .map((line) => line.split('\t'));
      const { resolve } = this.pending;
      this.pending = undefined;
      resolve(rows);
    });
    this.proc.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString('utf8')));
    this.proc.on('exit', (code) => this.pending?.reject(new Error(`mariadb exited (${code}): ${this.stderr.trim()}`)));
  }

  /** Run one statement (no trailing semicolon); resolves with its rows. */
  query(sql: string): Promise<string[][]> {
    const result = this.queue.then(
      () =>
        new Promise<string[][]>((resolve, reject) => {
          this.pending = { resolve, reject };
          this.proc.stdin.write(`${sql};\nSELECT '${END}';\n`);
        }),
    );
    this.queue = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  close(): void {
    this.proc.stdin.end();
    this.proc.kill();
  }
}
