/** Building blocks of the differential corpus: the step type and request helpers. */
export interface Step {
  readonly name: string;
  readonly method: string;
  readonly path: string;
  readonly version?: string;
  readonly body?: unknown;
  /** A body sent as is (malformed JSON and the like). */
  readonly raw?: string;
  readonly headers?: Record<string, string>;
  /** Save top-level string fields of the reply under names for later steps. */
  readonly save?: Record<string, string>;
  /** Not a request to compare: poll GET `path` until provision_state (or `waitField`) is this ("!x": is not x). */
  readonly waitFor?: string;
  /** With `waitFor`: poll until this also holds of the node (e.g. an asynchronous last_error arrived). */
  readonly until?: (node: Record<string, unknown>) => boolean;
  readonly waitField?: string;
}

export const V = '1.82';
export const U1 = '11111111-1111-4111-8111-111111111111';
export const U2 = '22222222-2222-4222-8222-222222222222';
export const INSTANCE = '33333333-3333-4333-8333-333333333333';
export const MISSING = '44444444-4444-4444-8444-444444444444';

export const get = (name: string, path: string, version: string | undefined = V): Step => ({
  name,
  method: 'GET',
  path,
  ...(version ? { version } : {}),
});
export const post = (name: string, body: unknown, version = V, save?: Record<string, string>): Step => ({
  name,
  method: 'POST',
  path: '/v1/nodes',
  body,
  version,
  ...(save ? { save } : {}),
});
export const patch = (name: string, node: string, body: unknown, version = V, query = ''): Step => ({
  name,
  method: 'PATCH',
  path: `/v1/nodes/${node}${query}`,
  body,
  version,
});
export const provision = (name: string, node: string, target: string): Step => ({
  name,
  method: 'PUT',
  path: `/v1/nodes/${node}/states/provision`,
  body: { target },
  version: V,
});
export const wait = (node: string, state: string): Step => ({
  name: `wait ${node} ${state}`,
  method: 'GET',
  path: `/v1/nodes/${node}`,
  version: V,
  waitFor: state,
});
export const del = (name: string, path: string, version = V, body?: unknown): Step => ({
  name,
  method: 'DELETE',
  path,
  version,
  ...(body !== undefined ? { body } : {}),
});
export const put = (name: string, path: string, body?: unknown, version = V): Step => ({
  name,
  method: 'PUT',
  path,
  version,
  ...(body !== undefined ? { body } : {}),
});

export const FD = { driver: 'fake-hardware' };
