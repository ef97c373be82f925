/**
 * The agent's side of Ironic's ramdisk API, as IPA 9.4 (the agent of Ironic 21.4's release) calls
 * it: the API version is discovered from `GET /` (`default_version`), lookup sends
 * `X-OpenStack-Ironic-API-Version: min(that, 1.62)`, heartbeat `min(that, 1.68)`, and a heartbeat
 * carries `agent_token` from 1.62 and `agent_version` from 1.36 on. An https API's certificate is
 * verified as IPA's `get_ssl_client_options` says: not at all when insecure, against the configured
 * `cafile` alone when one is set (a path the agent lacks fails every request, as `requests` does),
 * else against the system's CAs.
 */
import { Agent, fetch as undiciFetch } from 'undici';
import type { AgentTls } from './vmedia-config';

export type ApiVersion = readonly [number, number];

const MIN_VERSION: ApiVersion = [1, 31];
const AGENT_VERSION_VERSION: ApiVersion = [1, 36];
const AGENT_TOKEN_VERSION: ApiVersion = [1, 62];
const AGENT_VERIFY_CA_VERSION: ApiVersion = [1, 68];

const atLeast = (a: ApiVersion, b: ApiVersion) => a[0] > b[0] || (a[0] === b[0] && a[1] >= b[1]);
const lowest = (a: ApiVersion, b: ApiVersion) => (atLeast(a, b) ? b : a);
const header = (v: ApiVersion) => ({ 'X-OpenStack-Ironic-API-Version': `${v[0]}.${v[1]}` });

export interface LookupResult {
  readonly node: { uuid: string } & Record<string, unknown>;
  readonly config: { heartbeat_timeout?: number; agent_token?: string; agent_token_required?: boolean } & Record<string, unknown>;
}

export type LookupOutcome = { found: LookupResult } | { retry: string; conflict?: boolean };

/** A post of inspection data: the answer, or a failure and whether IPA retries it (5xx, 409, no connection). */
export type InspectionOutcome =
  { readonly ok: true; readonly body: Record<string, unknown> } | { readonly ok: false; readonly retry: boolean; readonly error: string };

export type HeartbeatOutcome = { ok: true } | { ok: false; status?: number; conflict: boolean; error: string };

/** One request a test's fake Ironic (or a log) can look at. */
export interface SentRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body?: unknown;
}

export class IronicApiClient {
  private version: ApiVersion | undefined;
  agentToken: string | undefined;

  constructor(
    private readonly apiUrl: string,
    private readonly options: { readonly apiVersion?: string; readonly timeoutMs?: number; readonly tls?: AgentTls | undefined } = {},
  ) {
    this.apiUrl = apiUrl.replace(/\/+$/, '');
    const tls = options.tls;
    if (tls?.insecure) this.dispatcher = new Agent({ connect: { rejectUnauthorized: false } });
    else if (tls?.ca !== undefined) this.dispatcher = new Agent({ connect: { ca: tls.ca } });
  }

  /** The connections' TLS settings, when they are not the system's. */
  private readonly dispatcher: Agent | undefined;

  private async request(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Response> {
    const init = {
      method,
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', ...headers },
      body: body === undefined ? null : JSON.stringify(body),
      signal: AbortSignal.timeout(this.options.timeoutMs ?? 60_000),
    };
    const tls = this.options.tls;
    if (!tls?.insecure && tls?.cafile !== undefined && tls.ca === undefined && this.apiUrl.startsWith('https:')) {
      throw new Error(`Could not find a suitable TLS CA certificate bundle, invalid path: ${tls.cafile}`);
    }
    if (this.dispatcher === undefined) return fetch(`${this.apiUrl}${path}`, init);
    return (await undiciFetch(`${this.apiUrl}${path}`, { ...init, dispatcher: this.dispatcher })) as unknown as Response;
  }

  /** The API's newest version (configured, else `GET /`), remembered once known. */
  async apiVersion(): Promise<ApiVersion> {
    if (this.version) return this.version;
    const configured = this.options.apiVersion?.split('.').map(Number);
    if (configured && configured.length === 2 && configured.every(Number.isInteger)) {
      this.version = configured as unknown as ApiVersion;
      return this.version;
    }
    try {
      const data = (await (await this.request('GET', '/', {})).json()) as { default_version?: { version?: string } };
      const parts = (data.default_version?.version ?? '').split('.').map(Number);
      if (parts.length !== 2 || !parts.every(Number.isInteger)) return MIN_VERSION;
      this.version = [parts[0] as number, parts[1] as number];
      return this.version;
    } catch {
      // As IPA: the version could not be discovered this time; assume the oldest and ask again later.
      return MIN_VERSION;
    }
  }

  /** One lookup attempt: the node and config, or why to try again. */
  async lookup(addresses: readonly string[], nodeUuid?: string): Promise<LookupOutcome> {
    const query = new URLSearchParams({ addresses: addresses.join(',') });
    if (nodeUuid) query.set('node_uuid', nodeUuid);
    let response: Response;
    try {
      response = await this.request('GET', `/v1/lookup?${query.toString()}`, header(lowest(await this.apiVersion(), AGENT_TOKEN_VERSION)));
    } catch (err) {
      return { retry: `lookup failed: ${(err as Error).message}` };
    }
    const text = await response.text().catch(() => '');
    if (response.status === 409) return { retry: `node locked: ${errorText(response.status, text)}`, conflict: true };
    if (response.status !== 200) return { retry: `lookup answered ${errorText(response.status, text)}` };
    try {
      const content = JSON.parse(text) as Partial<LookupResult> & { heartbeat_timeout?: number };
      if (!content.node || typeof content.node.uuid !== 'string') return { retry: 'lookup answered without a node uuid' };
      // An old API put heartbeat_timeout at the top level.
      const config =
        content.config ?? (content.heartbeat_timeout !== undefined ? { heartbeat_timeout: content.heartbeat_timeout } : undefined);
      if (!config) return { retry: 'lookup answered without config' };
      return { found: { node: content.node, config } };
    } catch (err) {
      return { retry: `lookup answered with bad JSON: ${(err as Error).message}` };
    }
  }

  /**
   * IPA's `call_inspector`: post the collected data to the inspection callback URL, as IPA does,
   * without an API version header (so Ironic reads it at 1.1, answering `{"uuid": …}`).
   */
  async postInspectionData(url: string, data: Record<string, unknown>): Promise<InspectionOutcome> {
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify(data),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 60_000),
      });
    } catch (err) {
      return { ok: false, retry: true, error: `connection error: ${(err as Error).message}` };
    }
    const text = await response.text().catch(() => '');
    if (response.status >= 500 || response.status === 409) return { ok: false, retry: true, error: errorText(response.status, text) };
    if (response.status >= 400) return { ok: false, retry: false, error: errorText(response.status, text) };
    try {
      return { ok: true, body: (text === '' ? {} : JSON.parse(text)) as Record<string, unknown> };
    } catch {
      return { ok: true, body: {} };
    }
  }

  async heartbeat(nodeUuid: string, callbackUrl: string, agentVersion: string, verifyCa?: string): Promise<HeartbeatOutcome> {
    const version = await this.apiVersion();
    const body: Record<string, unknown> = { callback_url: callbackUrl };
    if (atLeast(version, AGENT_TOKEN_VERSION)) body.agent_token = this.agentToken ?? null;
    if (atLeast(version, AGENT_VERSION_VERSION)) body.agent_version = agentVersion;
    if (atLeast(version, AGENT_VERIFY_CA_VERSION) && verifyCa) body.agent_verify_ca = verifyCa;
    try {
      const response = await this.request(
        'POST',
        `/v1/heartbeat/${encodeURIComponent(nodeUuid)}`,
        header(lowest(version, AGENT_VERIFY_CA_VERSION)),
        body,
      );
      const text = await response.text().catch(() => '');
      if (response.status === 202) return { ok: true };
      return { ok: false, status: response.status, conflict: response.status === 409, error: errorText(response.status, text) };
    } catch (err) {
      return { ok: false, conflict: false, error: (err as Error).message };
    }
  }
}

/** IPA's `_error_from_response`: "Error <status>: <faultstring or title or text>". */
function errorText(status: number, text: string): string {
  let message = text;
  try {
    let body = JSON.parse(text) as Record<string, unknown>;
    if (body.error_message !== undefined) {
      body = (typeof body.error_message === 'string' ? JSON.parse(body.error_message) : body.error_message) as Record<string, unknown>;
    }
    message = String(body.faultstring ?? body.title ?? text);
  } catch {
    // not JSON: the text as it is
  }
  return `Error ${status}: ${message}`;
}
