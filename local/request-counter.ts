/**
 * A counting proxy in front of a local AWS service endpoint: every request is forwarded unchanged,
 * and counted by operation (the JSON protocol's X-Amz-Target). Benchmarks read the counts to report
 * round trips per request — the unit the AWS bill is made of.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export class RequestCounter {
  private server: Server | undefined;
  /** Operation (e.g. "DynamoDB_20120810.GetItem") → requests forwarded. */
  readonly counts = new Map<string, number>();

  constructor(private readonly target: string) {}

  async start(): Promise<string> {
    const target = new URL(this.target);
    this.server = createServer((req, res) => {
      const operation = String(req.headers['x-amz-target'] ?? `${req.method} ${req.url}`);
      this.counts.set(operation, (this.counts.get(operation) ?? 0) + 1);
      const upstream = request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
        (reply) => {
          res.writeHead(reply.statusCode ?? 502, reply.headers);
          reply.pipe(res);
        },
      );
      upstream.on('error', () => {
        if (!res.headersSent) res.writeHead(502);
        res.end();
      });
      req.pipe(upstream);
    });
    this.server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Total requests, optionally only those whose operation contains `filter`. */
  total(filter?: string): number {
    let sum = 0;
    for (const [operation, n] of this.counts) if (filter === undefined || operation.includes(filter)) sum += n;
    return sum;
  }

  reset(): void {
    this.counts.clear();
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
