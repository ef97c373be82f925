/**
 * HTTP basic authentication against Apache-style htpasswd entries with bcrypt digests, as Ironic's
 * `http_basic` auth strategy does it (ironic-lib's auth_basic middleware): the same header
 * parsing, the same failures and messages. bcrypt is bcryptjs (pure JavaScript, no native build).
 */
import bcrypt from 'bcryptjs';

/** The realm of Ironic's WWW-Authenticate challenge. */
export const BASIC_REALM = 'Basic realm="Baremetal API"';

/** Why a request is refused: Ironic answers 401 (ask for credentials) or 400 (unreadable header). */
export class AuthFailure extends Error {
  constructor(
    readonly status: 400 | 401,
    message: string,
  ) {
    super(message);
  }
}

/** A bad htpasswd file: Ironic refuses to start with it (ConfigInvalid). */
export class HtpasswdError extends Error {}

export interface HtpasswdEntry {
  readonly user: string;
  readonly digest: string;
}

const BCRYPT_PREFIXES = ['$2y$', '$2a$', '$2b$'];

/** Parse htpasswd text: `user:digest` lines; blank lines and lines without ":" are skipped; only bcrypt digests. */
export function parseHtpasswd(text: string): HtpasswdEntry[] {
  const entries: HtpasswdEntry[] = [];
  for (const line of text.split('\n')) {
    const entry = line.trim();
    if (entry === '' || !entry.includes(':')) continue;
    const at = entry.indexOf(':');
    const user = entry.slice(0, at);
    const digest = entry.slice(at + 1);
    if (!BCRYPT_PREFIXES.includes(digest.slice(0, 4))) {
      throw new HtpasswdError(`Invalid configuration file. Only bcrypt digested passwords are supported for ${user}`);
    }
    entries.push({ user, digest });
  }
  return entries;
}

/** The token of a `Basic <token>` Authorization header (ironic-lib's parse_header). */
export function parseHeader(header: string | undefined): string {
  if (header === undefined) throw new AuthFailure(401, 'Authorization required');
  const parts = header.trim().split(/\s+/);
  if (parts.length < 2 || parts[0] === '') throw new AuthFailure(400, 'Could not parse Authorization header');
  const type = parts[0] as string;
  if (type.toLowerCase() !== 'basic') throw new AuthFailure(400, `Unsupported authorization type "${type}"`);
  return header.trim().slice(type.length).trim();
}

/** User name and password of a token (ironic-lib's parse_token: strict base64, "user:password"). */
export function parseToken(token: string): { user: string; password: string } {
  const fail = () => new AuthFailure(400, 'Could not decode authorization token');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(token) || token.length % 4 !== 0) throw fail();
  const pair = Buffer.from(token, 'base64');
  const colon = pair.indexOf(0x3a);
  if (colon < 0) throw fail();
  const user = new TextDecoder('utf-8', { fatal: true });
  try {
    return { user: user.decode(pair.subarray(0, colon)), password: pair.subarray(colon + 1).toString('utf8') };
  } catch {
    throw fail();
  }
}

/** The user a request's Authorization header proves, or AuthFailure (the first entry for the user decides). */
export async function authenticate(entries: readonly HtpasswdEntry[], header: string | undefined): Promise<string> {
  const { user, password } = parseToken(parseHeader(header));
  const entry = entries.find((e) => e.user === user);
  if (entry === undefined || !(await bcrypt.compare(password, entry.digest))) {
    throw new AuthFailure(401, 'Incorrect username or password');
  }
  return user;
}

/** The body ironic-lib answers a refused request with (outside Ironic's own error format). */
export function failureBody(status: number, message: string): string {
  return JSON.stringify({ error: { message, code: status } });
}
