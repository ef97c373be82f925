/**
 * The base classes of the error hierarchy (see `errors.ts`, which re-exports everything): each class
 * carries its HTTP status, and the API turns any of them into Ironic's error body once.
 */

export class IronicError extends Error {
  /** HTTP status the API answers with. */
  static readonly code: number = 500;
  /** Stable name used in logs, RPC replies and Step Functions error names. */
  override get name(): string {
    return this.constructor.name;
  }

  get code(): number {
    return (this.constructor as typeof IronicError).code;
  }

  /** Whether this error should be shown to the client as is (4xx) or hidden behind a generic 500. */
  get isClientError(): boolean {
    return this.code < 500;
  }
}

export class Invalid extends IronicError {
  static override readonly code: number = 400;
}

export class NotFound extends IronicError {
  static override readonly code: number = 404;
}

export class Conflict extends IronicError {
  static override readonly code: number = 409;
}
