/** What every Redfish resource module of the virtual BMC shares: the root path, requests, replies and errors. */

export const ROOT = '/redfish/v1';

export interface RedfishRequest {
  readonly method: string;
  /** Without query and trailing slash. */
  readonly path: string;
  readonly body: unknown;
}

export interface RedfishReply {
  readonly status: number;
  readonly body?: unknown;
  /** Headers besides Content-Type and OData-Version (a 202's `Location`). */
  readonly headers?: Readonly<Record<string, string>>;
}

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
