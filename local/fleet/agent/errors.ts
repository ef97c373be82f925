/**
 * The errors the virtual agent reports, shaped as ironic-python-agent's REST errors: a command's
 * `command_error` is `{type, code, message, details}`, and an HTTP error body is
 * `{faultcode, faultstring}` with `faultstring` = "<message>: <details>". Ironic's agent client reads
 * both (it matches "agent is busy" in a faultstring and `type: "TypeError"` in a command error), so
 * the class names, codes and messages here are the protocol's, not ours to choose.
 */

/** IPA's RESTError: a message fixed per class, details per occurrence. */
export class AgentError extends Error {
  /** The HTTP status when the error answers a request (and `code` in a command error). */
  readonly status: number;
  readonly type: string;
  readonly details: string;
  readonly summary: string;

  constructor(summary: string, details: string, status = 500, type = 'RESTError') {
    super(`${summary}: ${details}`);
    this.summary = summary;
    this.details = details;
    this.status = status;
    this.type = type;
  }

  serialize(): SerializedError {
    return { type: this.type, code: this.status, message: this.summary, details: this.details };
  }
}

/** Thrown when the agent dies while answering: the connection is dropped, nothing is answered. */
export class AgentCrashed extends Error {}

export interface SerializedError {
  type: string;
  code: number;
  message: string;
  details: string;
}

const UNEXPECTED = 'An unexpected error occurred. Please try back later.';

export const errors = {
  commandExecution: (details: string) => new AgentError('Command execution failed', details, 500, 'CommandExecutionError'),
  invalidCommand: (details: string) => new AgentError('Invalid command', details, 400, 'InvalidCommandError'),
  invalidCommandParams: (details: string) => new AgentError('Invalid command parameters', details, 400, 'InvalidCommandParamsError'),
  notFound: (what: string, id: string) =>
    new AgentError('Not found', `${what} with id ${id} not found.`, 404, 'RequestedObjectNotFoundError'),
  busy: (commandName: string) => new AgentError('Agent is busy', `executing command ${commandName}`, 409, 'AgentIsBusy'),
  imageDownload: (imageId: string, message: string) =>
    new AgentError('Error downloading image', `Download of image ${imageId} failed: ${message}`, 500, 'ImageDownloadError'),
  imageChecksum: (imageId: string, location: string, expected: string, actual: string) =>
    new AgentError(
      'Error verifying image checksum',
      `Image failed to verify against checksum. location: ${location}; image ID: ${imageId}; image checksum: ${expected}; verification checksum: ${actual}`,
      500,
      'ImageChecksumError',
    ),
  imageWrite: (device: string, stderr: string) =>
    new AgentError(
      'Error writing image to device',
      `Writing image to device ${device} failed with exit code 1. stdout: . stderr: ${stderr}`,
      500,
      'ImageWriteError',
    ),
  rest: (details: string) => new AgentError('An error occurred', details || UNEXPECTED),
  cleaning: (details: string) => new AgentError('Clean step failed', details, 500, 'CleaningError'),
  deployment: (details: string) => new AgentError('Deploy step failed', details, 500, 'DeploymentError'),
  servicing: (details: string) => new AgentError('Service step failed', details, 500, 'ServicingError'),
  versionMismatch: (agentVersion: unknown, nodeVersion: unknown) =>
    new AgentError(
      'Hardware managers version mismatch, reload agent with correct version',
      `Current versions: ${pyRepr(agentVersion)}, versions used by ironic: ${pyRepr(nodeVersion)}`,
      409,
      'VersionMismatch',
    ),
};

/** A command error as IPA serializes it; anything not an AgentError is what Python would call it. */
export function serializeError(err: unknown): SerializedError {
  if (err instanceof AgentError) return err.serialize();
  const type = err instanceof TypeError ? 'TypeError' : 'Exception';
  return { type, code: 500, message: err instanceof Error ? err.message : String(err), details: '' };
}

/** How Python prints a dict of strings in an error message (`{'a': '1'}`): the details read like IPA's. */
export function pyRepr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'string') return `'${value}'`;
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(', ')}]`;
  if (typeof value === 'object')
    return `{${Object.entries(value)
      .map(([k, v]) => `'${k}': ${pyRepr(v)}`)
      .join(', ')}}`;
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  return String(value);
}
