/**
 * Serving the web console's files (`ui/`, built by `lib/bundling.ts`) under `/ui/` of the API.
 * The files are few and small, so they travel inside the function's bundle: the same bytes on
 * AWS and on the local stack, with no bucket to keep in step with the API's version.
 *
 * The page asks the API for everything it shows, with the credentials the operator types into it;
 * the files themselves are public (they hold no data), as the API's `/` and `/v1` are.
 */
import { createHash } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';

/** Path under the API where the console lives. */
export const UI_PATH = '/ui';

const TYPES: Readonly<Record<string, string>> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};

/**
 * The page loads only its own files and talks only to its own origin (the API): nothing from a
 * CDN, no inline script, no framing (clickjacking an action button).
 */
const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
};

interface Asset {
  readonly body: string;
  readonly type: string;
  readonly etag: string;
}

function text(statusCode: number, body: string, headers: Record<string, string> = {}): APIGatewayProxyResult {
  return { statusCode, headers: { 'Content-Type': 'text/plain; charset=utf-8', ...SECURITY_HEADERS, ...headers }, body };
}

/** A handler serving `files` (name → content): `index.html` at `/ui/`, the others by name. */
export function serveFiles(files: Readonly<Record<string, string>>): (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult> {
  const assets = new Map<string, Asset>();
  for (const [name, body] of Object.entries(files)) {
    const type = TYPES[name.slice(name.lastIndexOf('.') + 1)] ?? 'application/octet-stream';
    assets.set(name, { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` });
  }
  return async (event) => {
    if (event.httpMethod !== 'GET' && event.httpMethod !== 'HEAD') return text(405, 'Method Not Allowed', { Allow: 'GET, HEAD' });
    const path = event.path;
    // "/ui" → "ui/": relative, so it resolves under the stage's prefix on AWS ("/ironless/ui/") too.
    if (path === UI_PATH) return text(301, 'Moved Permanently', { Location: 'ui/' });
    const name = path === `${UI_PATH}/` ? 'index.html' : path.startsWith(`${UI_PATH}/`) ? path.slice(UI_PATH.length + 1) : '';
    const asset = assets.get(name);
    if (asset === undefined) return text(404, `Not Found: ${path}`);
    const headers = {
      'Content-Type': asset.type,
      // Revalidated on every load (a new release must show at once), answered 304 while unchanged.
      'Cache-Control': 'no-cache',
      ETag: asset.etag,
      ...SECURITY_HEADERS,
    };
    const tag = Object.entries(event.headers ?? {}).find(([key]) => key.toLowerCase() === 'if-none-match')?.[1];
    if (tag !== undefined && tag.split(',').some((t) => t.trim() === asset.etag)) return { statusCode: 304, headers, body: '' };
    return { statusCode: 200, headers, body: event.httpMethod === 'HEAD' ? '' : asset.body };
  };
}
