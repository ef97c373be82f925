/** What every Redfish resource module of the virtual BMC shares: the root path, requests, replies and errors. */

export const ROOT = '/redfish/v1';

export interface RedfishRequest {
  readonly method: string;
  /** Without query and trailing slash. */
  readonly path: string;
  readonly body: unknown;
  /** The query string, without its `?` (`$expand=.($levels=1)`), when there is one. */
  readonly query?: string;
}

export interface RedfishReply {
  readonly status: number;
  readonly body?: unknown;
  /** Headers besides Content-Type and OData-Version (a 202's `Location`). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** A link to a resource. */
export const ref = (path: string) => ({ '@odata.id': path });

/** A resource collection of `type` with links to `members`. */
export function collection(path: string, type: string, members: string[]): Record<string, unknown> {
  return {
    '@odata.type': `#${type}Collection.${type}Collection`,
    '@odata.id': path,
    Name: `${type} Collection`,
    'Members@odata.count': members.length,
    Members: members.map(ref),
  };
}

/** The 404 of a path the BMC does not serve. */
export const notFound = (path: string): RedfishReply =>
  redfishError(404, 'Base.1.8.ResourceMissingAtURI', `The resource at the URI ${path} was not found.`);

/** A Redfish error document (DSP0266 §9.6), which sushy reads for its messages. */
export function redfishError(status: number, messageId: string, message: string): RedfishReply {
  return {
    status,
    body: {
      error: {
        code: 'Base.1.8.GeneralError',
        message: 'A general error has occurred. See ExtendedInfo for more information.',
        '@Message.ExtendedInfo': [{ MessageId: messageId, Message: message, Severity: 'Critical', Resolution: 'None.' }],
      },
    },
  };
}
