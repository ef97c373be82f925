/**
 * API errors in words. Ironic answers `{"error_message": "<JSON of {faultstring, …}>"}` (the inner
 * object is a string); ironic-lib's http_basic refusals `{"error": {"message"}}`; API Gateway
 * `{"message"}`. Pure: no DOM, unit-tested.
 */

/** What a status means to an operator, before the API's own words. */
const STATUS_WORDS: Readonly<Record<number, string>> = {
  400: 'The API refused the request',
  401: 'Not signed in, or the user name or password is wrong',
  403: 'Not allowed',
  404: 'Not found',
  405: 'Not possible on this resource',
  406: 'This API version does not offer it',
  409: 'Conflict: the node is busy or the value is taken',
  413: 'The request is too large',
  500: 'The API failed',
  502: 'The API function failed',
  503: 'The service cannot act now (is a conductor alive?)',
  504: 'The API did not answer in time',
};

export interface ApiErrorText {
  /** What the status means. */
  readonly title: string;
  /** The API's own message (Ironic's faultstring), when it gave one. */
  readonly detail: string;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function field(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
}

/** The API's message inside an error body, or '' when it has none. */
export function faultString(body: string): string {
  const json = parse(body);
  const wrapped = field(json, 'error_message');
  if (typeof wrapped === 'string') {
    const inner = parse(wrapped);
    const text = field(inner, 'faultstring') ?? field(inner, 'description') ?? field(inner, 'title');
    return typeof text === 'string' ? text : wrapped;
  }
  const older = field(wrapped, 'faultstring');
  if (typeof older === 'string') return older;
  const basic = field(field(json, 'error'), 'message');
  if (typeof basic === 'string') return basic;
  const gateway = field(json, 'message');
  if (typeof gateway === 'string') return gateway;
  return json === undefined ? body.trim().slice(0, 500) : '';
}

/** A failed reply as words: what its status means and the API's own message. */
export function describeError(status: number, body: string): ApiErrorText {
  const title = STATUS_WORDS[status] ?? (status >= 500 ? `The API failed (HTTP ${status})` : `The API answered HTTP ${status}`);
  return { title, detail: faultString(body) };
}

/** Explanations of a node's last_error: a pattern, what it usually means, what to do. */
const EXPLANATIONS: readonly (readonly [RegExp, string])[] = [
  [
    /must be provided|missing are|is required|are required/i,
    'The node lacks information the flow needs: set what the message names (for a deploy, instance_info’s image_source and, for an HTTP image, its checksum) and try again.',
  ],
  [
    /timeout reached while waiting for callback|callback timeout|did not call back/i,
    'The ramdisk agent never called back. Check that the node boots the deploy ISO or ramdisk and that the agent can reach the API (lookup and heartbeat).',
  ],
  [/checksum/i, "The image did not match its checksum: check instance_info's image_checksum (or image_os_hash_value) and the image URL."],
  [
    /(download|fetch|retrieve)\w*.*image|image.*(download|fetch|not found|404)/i,
    'The agent could not download the image: check that image_source is reachable from the provisioning network.',
  ],
  [
    /agent.*version|changed version|version.*(changed|mismatch)/i,
    'The agent came back with another version after a reboot, so the steps it reported may no longer hold; deploy again.',
  ],
  [
    /(deploy|clean|service) step \S+ failed|post \w+ step hook/i,
    'A step failed. The message names the step and what the agent (in-band steps) or the driver (out-of-band steps) reported.',
  ],
  [
    /no valid host|no conductor service registered|no conductor/i,
    'No live conductor serves this node’s driver and conductor group. See Conductors.',
  ],
  [/aborted/i, 'The flow was aborted, by an operator or after a conductor restart.'],
  [
    /heartbeat/i,
    'The ramdisk agent stopped heartbeating while a step ran: it crashed, hung or lost its network. Its console or logs tell which.',
  ],
  [
    /redfish|bmc|connection (refused|reset)|econnrefused|etimedout|timed out|unauthorized|401/i,
    'The BMC did not answer as expected: check driver_info (address, credentials) and that the BMC is reachable from the conductor.',
  ],
  [/power/i, 'A power action failed or the power state did not change in time. Check the BMC, then set the power state again.'],
  [/locked/i, 'Another operation held the node. Retry once it is finished.'],
];

/** What to do next from a failed state. */
const NEXT_STEPS: Readonly<Record<string, string>> = {
  'deploy failed': 'Deploy again once the cause is fixed, or undeploy to clean the node and return it to available.',
  'clean failed': 'The node is in maintenance. Fix the cause, then Manage (to manageable) and Provide or Clean again.',
  'service failed': 'The node is in maintenance. Unset maintenance, then Abort (back to active) or Service again.',
  'inspect failed': 'Manage it to return it to manageable, then inspect again.',
  'rescue failed': 'Rescue again, or unrescue.',
  'unrescue failed': 'Unrescue again, or rescue.',
  'adopt failed': 'Adopt again, or Manage to return it to manageable.',
  error: 'Undeploy to tear the instance down and clean the node.',
  enroll: 'Check driver_info and the BMC, then Manage again to verify it.',
};

/** A sentence explaining a last_error (and the way on from the node's state), or '' when nothing is known. */
export function explainLastError(lastError: string | null | undefined, provisionState?: string): string {
  if (lastError === null || lastError === undefined || lastError === '') return '';
  const known = EXPLANATIONS.find(([pattern]) => pattern.test(lastError))?.[1] ?? '';
  const next = provisionState !== undefined ? (NEXT_STEPS[provisionState] ?? '') : '';
  return [known, next].filter((s) => s !== '').join(' ');
}
