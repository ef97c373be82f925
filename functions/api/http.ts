/**
 * The API's request and response, independent of API Gateway, and Ironic's error body.
 *
 * Every non-2xx answer has Ironic's shape: `{"error_message": "<JSON string of {faultcode,
 * faultstring, debuginfo}>"}` — the inner object is a string (double-encoded), as Ironic's
 * ParsableErrorMiddleware produces. Unexpected errors are logged with their stack and answered
 * with a generic 500; only our own errors' messages reach the client.
 */
import { DatabaseUnavailable, HttpError, type IronicError } from '#common/errors';
import type { ApiVersion } from './microversion';

export interface ApiRequest {
  readonly method: string;
  /** Path without the API Gateway stage, e.g. "/v1/nodes". */
  readonly path: string;
  /** Query parameters; repeated ones keep every value. */
  readonly query: Readonly<Record<string, readonly string[]>>;
  /** Header names lower-cased. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | undefined;
  readonly requestId: string;
  /** The public base URL of the API, without a trailing slash (for links). */
  readonly baseUrl: string;
  /** Negotiated version (set by the router before controllers run). */
  version: ApiVersion;
  /** Whether `version` was negotiated (errors after that carry the version headers). */
  negotiated?: boolean;
  /** The path ended in ".json", which the router stripped (pecan's content-type extension). */
  jsonSuffix?: boolean;
}

export interface ApiResponse {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** JSON body; undefined for no content. */
  readonly body?: unknown;
}

export function json(status: number, body: unknown, headers?: Record<string, string>): ApiResponse {
  return headers === undefined ? { status, body } : { status, body, headers };
}

export function noContent(status = 204): ApiResponse {
  return { status };
}

/** Ironic's error body for an error with a client-visible message. */
export function errorBody(status: number, message: string): { error_message: string } {
  return {
    error_message: JSON.stringify({ faultcode: status >= 500 ? 'Server' : 'Client', faultstring: message, debuginfo: null }),
  };
}

/** The response for one of our errors; anything else is an unexpected 500 (see the entry). */
export function errorResponse(err: IronicError): ApiResponse {
  if (err instanceof HttpError) {
    return {
      status: err.status,
      headers: err.headers,
      body: { error_message: JSON.stringify({ code: err.status, title: err.title, description: err.message }) },
    };
  }
  const body = errorBody(err.code, err.message);
  // DynamoDB unavailable (here, or in the conductor answering a call): clients retry a 503, after
  // the time Retry-After names (python-ironicclient and openstacksdk retry 503s by themselves).
  const unavailable = err instanceof DatabaseUnavailable || (err as { remoteName?: string }).remoteName === DatabaseUnavailable.name;
  if (unavailable) return { status: err.code, headers: { 'Retry-After': String(DatabaseUnavailable.RETRY_AFTER_SECONDS) }, body };
  return { status: err.code, body };
}

/** The single value of a query parameter; the last one wins when repeated (as webob does). */
export function queryValue(req: ApiRequest, name: string): string | undefined {
  const values = req.query[name];
  return values === undefined || values.length === 0 ? undefined : values[values.length - 1];
}
