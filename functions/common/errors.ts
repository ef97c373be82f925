/**
 * One error hierarchy for the whole service, shaped after Ironic's `ironic/common/exception.py`:
 * each class carries its HTTP status, and the API turns any of them into Ironic's error body once
 * (see `functions/api/http.ts`). Messages are Ironic's, with the offending value in them.
 */

import { Conflict, IronicError, Invalid, NotFound } from './error-base';

export * from './error-base';
export * from './resource-errors';

// --- 4xx ------------------------------------------------------------------------------------

export class InvalidParameterValue extends Invalid {}
export class MissingParameterValue extends InvalidParameterValue {}
/** A JSON patch operation that could not be applied; `patch` is shown as Python prints it. */
export class PatchError extends Invalid {
  constructor(patchRepr: string, reason: string) {
    super(`Couldn't apply patch '${patchRepr}'. Reason: ${reason}`);
  }
}
export class InvalidUUID extends Invalid {
  constructor(value: unknown) {
    super(`Expected a UUID but received ${String(value)}.`);
  }
}
export class InvalidUuidOrName extends Invalid {
  constructor(value: unknown) {
    super(`Expected a logical name or UUID but received ${String(value)}.`);
  }
}
export class InvalidName extends Invalid {
  constructor(value: unknown) {
    super(`Expected a logical name but received ${String(value)}.`);
  }
}
export class InvalidMAC extends Invalid {
  constructor(value: unknown) {
    super(`Expected a MAC address but received ${String(value)}.`);
  }
}
export class InvalidStateRequested extends Invalid {
  constructor(action: string, node: string, state: string) {
    super(`The requested action "${action}" can not be performed on node "${node}" while it is in state "${state}".`);
  }
}
/** The operation `op` ("cleaning", "rescuing", …) is refused while the node is in maintenance. */
export class NodeInMaintenance extends Invalid {
  constructor(op: string, node: string) {
    super(`The ${op} operation can't be performed on node ${node} because it's in maintenance mode.`);
  }
}
/** The operation `op` ("providing") is refused while the node is retired. */
export class NodeIsRetired extends Invalid {
  constructor(op: string, node: string) {
    super(`The ${op} operation can't be performed on node ${node} because it is retired.`);
  }
}
/** A driver does not implement an operation, or its interface is a `no-*` one (Ironic's noop). */
export class NodeConsoleNotEnabled extends Invalid {
  constructor(node: string) {
    super(`Console access is not enabled on node ${node}`);
  }
}
export class UnsupportedDriverExtension extends Invalid {
  constructor(driver: string, extension: string) {
    super(`Driver ${driver} does not support ${extension} (disabled or not implemented).`);
  }

  /** With a message of its own, as Ironic's `UnsupportedDriverExtension(msg)` (e.g. the boot mode sync's). */
  static withMessage(message: string): UnsupportedDriverExtension {
    const err = new UnsupportedDriverExtension('', '');
    err.message = message;
    return err;
  }
}
/**
 * A write DynamoDB refused because the item would be larger than an item may be (400 KB). Ironic's
 * database takes such values (its JSON columns are MEDIUMTEXT); Ironless answers 400, writes nothing.
 */
export class ObjectTooLarge extends Invalid {
  constructor(detail: string) {
    super(
      `The object is too large to be stored: a stored object holds at most 400 KB, all its fields together (${detail}). Store large data elsewhere (an image service, an S3 URL) and refer to it.`,
    );
  }
}
/** Ironic's ClientSideError: a client error with its own status (400 unless given). */
export class ClientSideError extends Invalid {
  constructor(
    message: string,
    readonly status: number = 400,
  ) {
    super(message);
  }
  override get code(): number {
    return this.status;
  }
}
export class InvalidConductorGroup extends Invalid {
  constructor(group: unknown) {
    super(`Expected a conductor group but received ${String(group)}.`);
  }
}

export class NotAuthorized extends IronicError {
  static override readonly code: number = 403;
}
export class HTTPForbidden extends NotAuthorized {}
export class NodeProtected extends HTTPForbidden {
  constructor(node: string) {
    super(`Node ${node} is protected and cannot be undeployed, rebuilt or deleted`);
  }
}
export class OperationNotPermitted extends NotAuthorized {
  constructor() {
    super('Operation not permitted.');
  }
}
export class Unauthorized extends IronicError {
  static override readonly code: number = 401;
}

export class NodeNotFound extends NotFound {
  constructor(node: string) {
    super(`Node ${node} could not be found.`);
  }
}
export class ResourceNotFound extends NotFound {
  constructor() {
    super('The resource could not be found.');
  }
}
export class DriverNotFound extends NotFound {
  constructor(driver: string) {
    super(`Could not find the following driver(s) or hardware type(s): ${driver}.`);
  }
}
export class NoValidHost extends NotFound {}
export class NodeTraitNotFound extends NotFound {
  constructor(node: string, trait: string) {
    super(`Node ${node} doesn't have a trait '${trait}'`);
  }
}
/** An error of another class answered with a different status (Ironic sets `e.code` before re-raising). */
export function withStatus<T extends IronicError>(err: T, status: number): T {
  Object.defineProperty(err, 'code', { value: status });
  return err;
}

export class MethodNotAllowed extends IronicError {
  static override readonly code: number = 405;
}

export class NotAcceptable extends IronicError {
  static override readonly code: number = 406;
}

export class NodeLocked extends Conflict {
  constructor(node: string, host: string) {
    super(`Node ${node} is locked by host ${host}, please retry after the current operation is completed.`);
  }
}
export class DuplicateName extends Conflict {
  constructor(name: string) {
    super(`A node with name ${name} already exists.`);
  }
}
export class NodeAlreadyExists extends Conflict {
  constructor(uuid: string) {
    super(`A node with UUID ${uuid} already exists.`);
  }
}
export class InstanceAssociated extends Conflict {
  constructor(instance: string, node: string) {
    super(`Instance ${instance} is already associated with a node, it cannot be associated with this other node ${node}`);
  }
}
export class InvalidState extends Conflict {}
/** The node did not reach the requested power state in time. */
export class PowerStateFailure extends InvalidState {
  constructor(pstate: string) {
    super(`Failed to set node power state to ${pstate}.`);
  }
}
export class NodeAssociated extends InvalidState {
  constructor(node: string, instance: string) {
    super(`Node ${node} is associated with instance ${instance}.`);
  }
}
/** An optimistic-concurrency write lost its race; callers retry or answer 409. */
export class ConcurrentUpdate extends Conflict {
  constructor(what: string) {
    super(`${what} was changed by another request at the same time, please retry.`);
  }
}

// --- VIFs (network interfaces) -------------------------------------------------------------
export class VifAlreadyAttached extends Conflict {
  constructor(vif: string, objectType: string, objectUuid: string) {
    super(`Unable to attach VIF because VIF ${vif} is already attached to Ironic ${objectType} ${objectUuid}`);
  }
}
export class NoFreePhysicalPorts extends Invalid {
  constructor(vif: string) {
    super(`Unable to attach VIF ${vif}, not enough free physical ports.`);
  }
}
export class VifNotAttached extends Invalid {
  constructor(vif: string, node: string) {
    super(`Unable to detach VIF ${vif} from node ${node} because it is not attached to it.`);
  }
}
/**
 * Trait based networking found no rules for the node (Ironic's TBNNoTraitsApplicableToNode, and
 * TBNNoPortMatchesFound below). NOTE: Ironic answers both with 500; they are the request's (or
 * the node's) fault, so 400 here.
 */
export class TbnNoTraitsApplicableToNode extends Invalid {
  constructor(node: string) {
    super(`No Trait Based Networking traits were found which could apply to the node ${node}.`);
  }
}
export class TbnNoPortMatchesFound extends Invalid {
  constructor(node: string, vif: string) {
    super(`No matching ports were found when planning the networking for node ${node} and network ${vif}.`);
  }
}
export class PortgroupPhysnetInconsistent extends IronicError {
  constructor(portgroup: string, physicalNetworks: string) {
    super(
      `Port group ${portgroup} has member ports with inconsistent physical networks (${physicalNetworks}). All ports in a port group must have the same physical network.`,
    );
  }
}

export class RequestEntityTooLarge extends IronicError {
  static override readonly code: number = 413;
}

export class UnsupportedMediaType extends IronicError {
  static override readonly code: number = 415;
}

// --- 5xx ------------------------------------------------------------------------------------

export class TemporaryFailure extends IronicError {
  static override readonly code: number = 503;
}
/**
 * DynamoDB throttled the request or failed it beyond the client's retries (throttling, a 5xx, a
 * timeout): answered as Ironic's TemporaryFailure, a 503 with Retry-After; in the conductor the
 * caller retries (Step Functions' Retry by this name, SQS redelivery). The cause is logged, not
 * returned. `outcomeUnknown`: the request may have been applied (an attempt timed out or got a 5xx).
 */
export class DatabaseUnavailable extends TemporaryFailure {
  /** Seconds a client should wait before sending the request again. */
  static readonly RETRY_AFTER_SECONDS = 2;

  constructor(
    readonly reason: string,
    readonly outcomeUnknown: boolean,
    options?: ErrorOptions,
  ) {
    super('Resource temporarily unavailable, please retry.', options);
  }

  get retryAfterSeconds(): number {
    return DatabaseUnavailable.RETRY_AFTER_SECONDS;
  }
}
export class NoFreeConductorWorker extends TemporaryFailure {
  constructor() {
    super('Requested action cannot be performed due to lack of free conductor workers.');
  }
}

/** An item carries an object version this release cannot read (Ironic's IncompatibleObjectVersion). */
export class IncompatibleObjectVersion extends IronicError {
  constructor(objName: string, objVer: string, supported: string) {
    super(`Version ${objVer} of ${objName} is not supported, supported version is ${supported}`);
  }
}

/** Failure of a driver call (BMC or agent); the conductor records it as the node's last_error. */
export class DriverOperationError extends IronicError {}
/** A Redfish BMC answered with an error, or the answer made no sense (Ironic's RedfishError). */
export class RedfishError extends DriverOperationError {
  constructor(error: string) {
    super(`Redfish exception occurred. Error: ${error}`);
  }
}
/** The BMC could not be reached, or did not answer in time (Ironic's RedfishConnectionError). */
export class RedfishConnectionError extends RedfishError {
  constructor(node: string, error: string) {
    super(error);
    this.message = `Redfish connection failed for node ${node}: ${error}`;
  }
}
export class HardwareInspectionFailure extends IronicError {
  constructor(error: string) {
    super(`Failed to inspect hardware. Reason: ${error}`);
  }
}
/** Ironic's ImageCreationFailed: building an image (the boot ISO) failed. */
export class ImageCreationFailed extends IronicError {
  constructor(imageType: string, error: string) {
    super(`Creating ${imageType} image failed: ${error}`);
  }
}

/** Ironic's ImageRefValidationFailed: the image server answered the conductor with another code than 200. */
export class ImageRefValidationFailed extends IronicError {
  constructor(imageHref: string, reason: string) {
    super(`Validation of image href ${imageHref} failed, reason: ${reason}`);
  }
}
/** Ironic's ImageDownloadFailed: fetching an image the conductor keeps failed on the way. */
export class ImageDownloadFailed extends IronicError {
  constructor(imageHref: string, reason: string) {
    super(`Failed to download image ${imageHref}, reason: ${reason}`);
  }
}

export class InstanceDeployFailure extends IronicError {
  constructor(reason: string) {
    super(`Failed to deploy instance: ${reason}`);
  }
}

export function isIronicError(err: unknown): err is IronicError {
  return err instanceof IronicError;
}

/**
 * An error Ironic raises below its own exception handling (webob, from routing, version
 * negotiation and argument checks). Ironic 21.4 renders these with a different inner body,
 * `{"code": N, "title": "...", "description": "..."}`, and clients parse both forms.
 */
export class HttpError extends IronicError {
  constructor(
    readonly status: number,
    readonly title: string,
    message = '',
    /** Headers the response carries anyway (a 406 still says which versions are supported). */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
  override get code(): number {
    return this.status;
  }
}

export const httpErrors = {
  badRequest: (message: string) => new HttpError(400, 'Bad Request', message),
  notFound: (message = '') => new HttpError(404, 'Not Found', message),
  methodNotAllowed: (message = '', allow?: readonly string[]) =>
    new HttpError(405, 'Method Not Allowed', message, allow ? { Allow: allow.join(', ') } : {}),
  notAcceptable: (message: string, headers?: Record<string, string>) => new HttpError(406, 'Not Acceptable', message, headers),
};
