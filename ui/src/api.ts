/**
 * The console's only way out: HTTP to the API it was served by (Ironic's v1 API, and Ironless's
 * read-only `/ironless/v1/…` endpoints). With http_basic the operator's credentials live in this
 * module's memory for the tab's life and nowhere else: not in storage, not in the URL.
 *
 * `credentials: 'omit'` keeps the browser out of it: it neither prompts with its own Basic dialog
 * on a 401 nor reuses credentials it cached; the page sends the Authorization header itself.
 */
import { type ApiErrorText, describeError } from './errors';

/** The newest microversion this console knows; it asks for min(this, the server's maximum). */
export const KNOWN_MINOR = 87;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly words: ApiErrorText,
  ) {
    super(words.detail ? `${words.title}: ${words.detail}` : words.title);
  }
}

/** The API's root: the page lives at `<root>ui/`, so `..` from it (with a stage prefix on AWS too). */
export function apiRoot(pageUrl: string): string {
  return new URL('..', pageUrl).href;
}

let authorization: string | undefined;
let minor = 1;

export function signIn(user: string, password: string): void {
  const bytes = new TextEncoder().encode(`${user}:${password}`);
  authorization = `Basic ${btoa(String.fromCharCode(...bytes))}`;
}

export function signOut(): void {
  authorization = undefined;
}

export function signedIn(): boolean {
  return authorization !== undefined;
}

export function apiMinor(): number {
  return minor;
}

const root = apiRoot(location.href);

export interface Reply<T> {
  readonly status: number;
  readonly body: T;
}

/** One request; a non-2xx answer throws ApiError with the API's own words. */
export async function request<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<Reply<T>> {
  const headers: Record<string, string> = { Accept: 'application/json', 'X-OpenStack-Ironic-API-Version': `1.${minor}` };
  if (authorization) headers.Authorization = authorization;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(root + path.replace(/^\//, ''), {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'omit',
      cache: 'no-store',
    });
  } catch (err) {
    throw new ApiError(0, { title: 'The API cannot be reached', detail: (err as Error).message });
  }
  const text = await res.text();
  if (!res.ok) throw new ApiError(res.status, describeError(res.status, text));
  return { status: res.status, body: (text === '' ? {} : JSON.parse(text)) as T };
}

export const get = <T = Record<string, unknown>>(path: string) => request<T>('GET', path).then((r) => r.body);

/**
 * Learn the API's version range (`GET /v1`, public) and whether it wants credentials (a list call
 * answered 401). Returns false when the operator must sign in.
 */
export async function connect(): Promise<boolean> {
  const res = await fetch(`${root}v1`, { credentials: 'omit', cache: 'no-store' });
  const max = res.headers.get('X-OpenStack-Ironic-API-Maximum-Version') ?? '1.1';
  minor = Math.min(KNOWN_MINOR, Number(max.split('.')[1] ?? 1));
  try {
    await request('GET', 'v1/nodes?limit=1&fields=uuid');
    return true;
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return false;
    throw err;
  }
}
