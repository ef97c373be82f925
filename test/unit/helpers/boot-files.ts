/**
 * What the conductor fetches to build an agent ISO, served on loopback for unit tests: a kernel at
 * `/k`, the fleet's agent ramdisk at `/r`, an ESP image at `/esp.img`, and `/moved`, a redirect to
 * the link-local metadata address (which the host policy must refuse). Register it with
 * `beforeAll`/`afterAll` through `useBootFiles()`; `base()` is its URL once started.
 */
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AGENT_RAMDISK } from '../../../local/fleet/agent-images';

const SERVED = new Map<string, Buffer>([
  ['/k', Buffer.from('kernel')],
  ['/r', AGENT_RAMDISK],
  ['/esp.img', Buffer.alloc(4096, 0xe5)],
]);

export function useBootFiles(): { base: () => string } {
  let server: Server | undefined;
  let base = '';
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/moved') {
        res.writeHead(302, { Location: 'http://169.254.169.254/latest' });
        res.end();
        return;
      }
      const body = SERVED.get(req.url ?? '');
      res.writeHead(body ? 200 : 404);
      res.end(body);
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));
  return { base: () => base };
}
