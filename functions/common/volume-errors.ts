/**
 * Ironic's errors for volume connectors and targets (`ironic/common/exception.py`), in the
 * hierarchy of `errors.ts` (kept apart so that module stays small).
 */
import { Conflict, Invalid, NotFound } from './errors';

export class VolumeConnectorNotFound extends NotFound {
  constructor(connector: string) {
    super(`Volume connector ${connector} could not be found.`);
  }
}
export class VolumeConnectorAlreadyExists extends Conflict {
  constructor(uuid: string) {
    super(`A volume connector with UUID ${uuid} already exists.`);
  }
}
export class VolumeConnectorTypeAndIdAlreadyExists extends Conflict {
  constructor(type: string, connectorId: string) {
    super(`A volume connector with type ${type} and connector ID ${connectorId} already exists.`);
  }
}
export class VolumeTargetNotFound extends NotFound {
  constructor(target: string) {
    super(`Volume target ${target} could not be found.`);
  }
}
export class VolumeTargetAlreadyExists extends Conflict {
  constructor(uuid: string) {
    super(`A volume target with UUID ${uuid} already exists.`);
  }
}
export class VolumeTargetBootIndexAlreadyExists extends Conflict {
  constructor(bootIndex: number) {
    super(`A volume target with boot index '${bootIndex}' for the same node already exists.`);
  }
}
/** Ironic's InvalidInput (a wsme ClientSideError): a body value that names nothing, e.g. a missing node. */
export class InvalidInput extends Invalid {
  constructor(field: string, value: unknown, message = '') {
    super(`Invalid input for field/attribute ${field}. Value: '${String(value)}'. ${message}`);
  }
}
