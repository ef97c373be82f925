import type { APIGatewayProxyEvent } from 'aws-lambda';
import { serveFiles } from '../../../functions/ui/serve';

const handler = serveFiles({ 'index.html': '<!doctype html><title>x</title>', 'app.js': 'console.log(1)', 'app.css': 'a{}' });
const event = (path: string, method = 'GET', headers: Record<string, string> = {}) =>
  ({ path, httpMethod: method, headers }) as unknown as APIGatewayProxyEvent;

describe('serveFiles', () => {
  it('serves the page at /ui/ and its files by name, with their types and the security headers', async () => {
    const page = await handler(event('/ui/'));
    expect([page.statusCode, page.body, page.headers?.['Content-Type']]).toEqual([
      200,
      '<!doctype html><title>x</title>',
      'text/html; charset=utf-8',
    ]);
    expect(String(page.headers?.['Content-Security-Policy'])).toContain("script-src 'self'");
    expect(page.headers?.['X-Frame-Options']).toBe('DENY');
    const script = await handler(event('/ui/app.js'));
    expect([script.statusCode, script.headers?.['Content-Type'], script.headers?.['Cache-Control']]).toEqual([
      200,
      'text/javascript; charset=utf-8',
      'no-cache',
    ]);
  });

  it('redirects /ui to ui/ relatively, so a stage prefix is kept', async () => {
    const moved = await handler(event('/ui'));
    expect([moved.statusCode, moved.headers?.Location]).toEqual([301, 'ui/']);
  });

  it('answers 304 to a matching ETag, 404 to an unknown file and 405 to a write', async () => {
    const first = await handler(event('/ui/app.css'));
    const again = await handler(event('/ui/app.css', 'GET', { 'if-none-match': String(first.headers?.ETag) }));
    expect([again.statusCode, again.body]).toEqual([304, '']);
    expect((await handler(event('/ui/secrets.txt'))).statusCode).toBe(404);
    expect((await handler(event('/ui/app.js', 'POST'))).statusCode).toBe(405);
    const head = await handler(event('/ui/app.js', 'HEAD'));
    expect([head.statusCode, head.body]).toEqual([200, '']);
  });
});
