/**
 * A small Redfish HTTP client: JSON over HTTP(S) with basic authentication (no sessions), the TLS
 * verification `redfish_verify_ca` asks for, a deadline for connecting and one for the answer, and
 * retries with back-off where a retry is safe. Written on `node:http(s)` rather than fetch because
 * fetch (undici) offers neither a connect timeout nor per-request CAs without another dependency.
 *
 * Errors are `RedfishRequestError`s whose messages follow sushy's (the library Ironic uses), so a
 * node's last_error reads like Ironic's: "HTTP GET <url> returned code 401. …", "Unable to connect
 * to <url>. Error: …". The interfaces wrap them in Ironic's RedfishError/RedfishConnectionError.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { type ClientRequest, type IncomingMessage, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { excerpt } from '#common/strutils';
import { ActionRefused } from '../guard';
import type { RedfishConfig } from './config';
import type { RedfishDriverInfo } from './driver-info';

/** A decoded Redfish resource; fields are read with care, since BMCs differ. */
export type Resource = Record<string, unknown>;

/**
 * `connection`: the BMC could not be reached, or it dropped the connection, or it did not answer in
 * time. `http`: it answered with an error status. `response`: it answered with something not JSON.
 */
export type FailureKind = 'connection' | 'http' | 'response';

export class RedfishRequestError extends Error {
  override readonly name = 'RedfishRequestError';
  constructor(
    message: string,
    readonly kind: FailureKind,
    readonly method: string,
    readonly url: string,
    /** Whether trying again may help: not for a certificate the client rejects, nor a 4xx. */
    readonly retryable: boolean,
    readonly status?: number,
    /** The MessageIds of an error answer's `@Message.ExtendedInfo`, whole (the message holds excerpts). */
    readonly messageIds: readonly string[] = [],
  ) {
    super(message);
  }
}

/** The MessageIds of a Redfish error body's `@Message.ExtendedInfo` (none when it is not one). */
export function extendedMessageIds(body: string): string[] {
  try {
    const info = (JSON.parse(body) as { error?: Record<string, unknown> }).error?.['@Message.ExtendedInfo'];
    if (!Array.isArray(info)) return [];
    return info.flatMap((m: unknown) => {
      const id = (m as { MessageId?: unknown } | null)?.MessageId;
      return typeof id === 'string' ? [id] : [];
    });
  } catch {
    return [];
  }
}

/** Error code of a connection the host policy refused at connect time (a name resolving to a denied address). */
const HOST_REFUSED = 'ERR_HOST_REFUSED';

/** Largest answer accepted; a Redfish resource is a few kB. */
const MAX_BODY = 4 * 1024 * 1024;
/** TLS verification failures: the same certificate fails the same way next time. */
const CERTIFICATE_ERROR = /CERT|SIGNATURE|ALTNAME|ISSUER/;

export interface ClientHooks {
  /** Called before each retry, for the log. */
  onRetry?(info: { method: string; url: string; attempt: number; delayMs: number; error: string }): void;
  /**
   * Called before each request is sent (`#drivers/guard`'s beforeAction): throws when the caller
   * may no longer act; returns how long the request may take at most.
   */
  beforeRequest?(): Promise<number>;
}

/** Python's repr of a JSON value, as sushy prints the extended information of an error. */
function pyRepr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') {
    const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
    const escaped = value
      .replace(/\\/g, '\\\\')
      .replace(/\n/g, '\\n')
      .replace(quote === "'" ? /'/g : /"/g, `\\${quote}`);
    return `${quote}${escaped}${quote}`;
  }
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(', ')}]`;
  return `{${Object.entries(value as Record<string, unknown>)
    .map(([k, v]) => `${pyRepr(k)}: ${pyRepr(v)}`)
    .join(', ')}}`;
}

/**
 * sushy's message for an HTTP error: the Redfish error code, its most severe message and the
 * extended information, so last_error reads exactly as Ironic's does for the same BMC answer.
 */
function httpErrorMessage(method: string, url: string, status: number, body: string): string {
  let error = 'unknown error';
  let extended = 'none';
  try {
    const parsed = JSON.parse(body) as { error?: Record<string, unknown> };
    const err = parsed.error ?? {};
    const info = Array.isArray(err['@Message.ExtendedInfo']) ? (err['@Message.ExtendedInfo'] as Record<string, unknown>[]) : [{}];
    const severe = info.find((m) => m?.Severity === 'Critical') ?? info.find((m) => m?.Severity === 'Warning') ?? info[0];
    const detail = (severe?.Message as string | undefined) ?? (err.message as string | undefined);
    error = `${(err.code as string | undefined) ?? 'Base.1.0.GeneralError'}: ${detail ?? 'unknown error.'}`;
    extended = pyRepr(info);
  } catch {
    // Not JSON: sushy says "unknown error" too.
  }
  // What the BMC wrote goes into last_error: short excerpts of it, never the whole body.
  return `HTTP ${method} ${url} returned code ${status}. ${excerpt(error)} Extended information: ${excerpt(extended)}`;
}

/** Seconds for a message: whole when whole, else with one decimal. */
function seconds(ms: number): string {
  return Number.isInteger(ms / 1000) ? String(ms / 1000) : (ms / 1000).toFixed(1);
}

/** The CAs of a `redfish_verify_ca` path: one bundle file, or every file in a folder. */
function loadCa(path: string): string[] {
  if (statSync(path).isDirectory()) {
    return readdirSync(path)
      .map((f) => join(path, f))
      .filter((f) => statSync(f).isFile())
      .map((f) => readFileSync(f, 'utf8'));
  }
  return [readFileSync(path, 'utf8')];
}

export class RedfishClient {
  private readonly authorization: string | undefined;
  private readonly tls: { rejectUnauthorized: boolean; ca?: string[] };

  constructor(
    readonly info: Pick<RedfishDriverInfo, 'address' | 'rootPrefix' | 'username' | 'password' | 'verifyCa'>,
    private readonly config: RedfishConfig,
    private readonly hooks: ClientHooks = {},
  ) {
    this.authorization =
      info.username !== undefined || info.password !== undefined
        ? `Basic ${Buffer.from(`${info.username ?? ''}:${info.password ?? ''}`).toString('base64')}`
        : undefined;
    this.tls =
      typeof info.verifyCa === 'string' ? { rejectUnauthorized: true, ca: loadCa(info.verifyCa) } : { rejectUnauthorized: info.verifyCa };
  }

  /** The absolute URL of a resource path (`/redfish/v1/Systems/1`). */
  url(path: string): string {
    return new URL(path, this.info.address).toString();
  }

  /** The service root's path. */
  get root(): string {
    return this.info.rootPrefix.endsWith('/') ? this.info.rootPrefix : `${this.info.rootPrefix}/`;
  }

  get(path: string): Promise<Resource> {
    return this.request('GET', path);
  }

  patch(path: string, body: Resource): Promise<Resource> {
    return this.request('PATCH', path, body);
  }

  post(path: string, body: Resource): Promise<Resource> {
    return this.request('POST', path, body);
  }

  /** One request with retries: connection failures, 5xx, and (for GET only) answers that time out. */
  async request(method: string, path: string, body?: Resource): Promise<Resource> {
    let url: string;
    try {
      url = this.url(path);
    } catch (err) {
      // e.g. a port out of range: driver_info passed Ironic's checks, the URL is still unusable.
      const where = `${this.info.address}${path}`;
      throw new RedfishRequestError(`Unable to connect to ${where}. Error: ${(err as Error).message}`, 'connection', method, where, false);
    }
    for (let attempt = 1; ; attempt++) {
      const budgetMs = (await this.hooks.beforeRequest?.()) ?? Number.POSITIVE_INFINITY;
      try {
        return await this.once(method, url, body, budgetMs);
      } catch (err) {
        if (!(err instanceof RedfishRequestError) || !err.retryable || attempt >= this.config.attempts) throw err;
        const delayMs = this.config.retryIntervalMs * 2 ** (attempt - 1);
        this.hooks.onRetry?.({ method, url, attempt, delayMs, error: err.message });
        await new Promise((resolve) => setTimeout(resolve, delayMs));
      }
    }
  }

  private once(method: string, url: string, body: Resource | undefined, budgetMs: number): Promise<Resource> {
    // No request waits past the caller's deadline, whatever the configured timeouts.
    const connectTimeoutMs = Math.min(this.config.connectTimeoutMs, budgetMs);
    const readTimeoutMs = Math.min(this.config.readTimeoutMs, budgetMs);
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const target = new URL(url);
    const headers: Record<string, string> = { Accept: 'application/json', 'OData-Version': '4.0' };
    if (this.authorization) headers.Authorization = this.authorization;
    if (payload) {
      headers['Content-Type'] = 'application/json';
      headers['Content-Length'] = String(payload.length);
    }
    const isTls = target.protocol === 'https:';
    const send = isTls ? httpsRequest : httpRequest;

    return new Promise<Resource>((resolve, reject) => {
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      const finish = (err: RedfishRequestError | ActionRefused | undefined, value?: Resource) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (err) {
          req.destroy();
          reject(err);
        } else {
          resolve(value ?? {});
        }
      };
      const connectionError = (detail: string, retryable = true) =>
        new RedfishRequestError(`Unable to connect to ${url}. Error: ${detail}`, 'connection', method, url, retryable);
      // A wait cut short by the caller's deadline is the caller running out of time, not the BMC failing.
      const outOfTime = (configuredMs: number, ms: number, fallback: () => RedfishRequestError) =>
        ms < configuredMs
          ? new ActionRefused('deadline', `${method} ${url} was cut short by the deadline after ${seconds(ms)} s`)
          : fallback();

      const req: ClientRequest = send(url, {
        method,
        headers,
        agent: false,
        // Addresses a BMC's name resolves to pass the host policy too (a name cannot lead to loopback).
        lookup: this.config.policy.bmc.lookup((reason) =>
          Object.assign(new Error(`${reason} by the conductor's host policy`), { code: HOST_REFUSED }),
        ),
        ...(isTls ? this.tls : {}),
      });
      timer = setTimeout(
        () =>
          finish(
            outOfTime(this.config.connectTimeoutMs, connectTimeoutMs, () =>
              connectionError(`timed out after ${seconds(connectTimeoutMs)} s connecting to the BMC`),
            ),
          ),
        connectTimeoutMs,
      );
      req.once('socket', (socket) => {
        socket.once(isTls ? 'secureConnect' : 'connect', () => {
          clearTimeout(timer);
          timer = setTimeout(
            // An action whose answer timed out may have been done: only a GET is safe to repeat.
            () =>
              finish(
                outOfTime(this.config.readTimeoutMs, readTimeoutMs, () =>
                  connectionError(`timed out after ${seconds(readTimeoutMs)} s waiting for the BMC to answer`, method === 'GET'),
                ),
              ),
            readTimeoutMs,
          );
        });
      });
      req.once('error', (err: NodeJS.ErrnoException) =>
        finish(
          connectionError(err.message || err.code || String(err), !CERTIFICATE_ERROR.test(err.code ?? '') && err.code !== HOST_REFUSED),
        ),
      );
      req.once('response', (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_BODY) {
            finish(
              new RedfishRequestError(`The answer of ${method} ${url} is larger than ${MAX_BODY} bytes`, 'response', method, url, false),
            );
          } else {
            chunks.push(chunk);
          }
        });
        res.once('error', (err) => finish(connectionError(err.message)));
        res.once('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const status = res.statusCode ?? 0;
          if (status >= 400) {
            // A busy or briefly broken BMC answers 5xx: worth another try (sushy retries these too).
            finish(
              new RedfishRequestError(
                httpErrorMessage(method, url, status, text),
                'http',
                method,
                url,
                status >= 500,
                status,
                extendedMessageIds(text),
              ),
            );
            return;
          }
          if (text.trim() === '') {
            finish(undefined, {});
            return;
          }
          try {
            const parsed = JSON.parse(text) as unknown;
            if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
            finish(undefined, parsed as Resource);
          } catch {
            finish(new RedfishRequestError(`The answer of ${method} ${url} is not a JSON object`, 'response', method, url, false, status));
          }
        });
      });
      req.end(payload);
    });
  }
}
