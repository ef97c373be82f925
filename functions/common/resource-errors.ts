/**
 * Lookup and conflict errors of the API's resources other than nodes (chassis, ports, port groups,
 * conductors, deploy templates, runbooks, allocations, history, inventory, BIOS), with Ironic's messages.
 * Re-exported by `errors.ts`; import them from there.
 */
import { Conflict, IronicError, Invalid, NotFound } from './error-base';

export class ChassisNotFound extends NotFound {
  constructor(chassis: string) {
    super(`Chassis ${chassis} could not be found.`);
  }
}
export class ChassisAlreadyExists extends Conflict {
  constructor(uuid: string) {
    super(`A chassis with UUID ${uuid} already exists.`);
  }
}
export class ChassisNotEmpty extends Invalid {
  constructor(chassis: string) {
    super(`Cannot complete the requested action because chassis ${chassis} contains nodes.`);
  }
}
export class PortNotFound extends NotFound {
  constructor(port: string) {
    super(`Port ${port} could not be found.`);
  }
}
export class PortAlreadyExists extends Conflict {
  constructor(uuid: string) {
    super(`A port with UUID ${uuid} already exists.`);
  }
}
export class MACAlreadyExists extends Conflict {
  constructor(mac: string) {
    super(`A port with MAC address ${mac} already exists.`);
  }
}
export class PortDuplicateName extends Conflict {
  constructor(name: string) {
    super(`A port with name ${name} already exists.`);
  }
}
export class PortgroupNotFound extends NotFound {
  constructor(portgroup: string) {
    super(`Portgroup ${portgroup} could not be found.`);
  }
}
export class PortgroupAlreadyExists extends Conflict {
  constructor(uuid: string) {
    super(`A portgroup with UUID ${uuid} already exists.`);
  }
}
export class PortgroupDuplicateName extends Conflict {
  constructor(name: string) {
    super(`A portgroup with name ${name} already exists.`);
  }
}
export class PortgroupMACAlreadyExists extends Conflict {
  constructor(mac: string) {
    super(`A portgroup with MAC address ${mac} already exists.`);
  }
}
export class PortgroupNotEmpty extends Invalid {
  constructor(portgroup: string) {
    super(`Cannot complete the requested action because portgroup ${portgroup} contains ports.`);
  }
}
export class ConductorNotFound extends NotFound {
  constructor(conductor: string) {
    super(`Conductor ${conductor} could not be found.`);
  }
}
export class ConductorAlreadyRegistered extends IronicError {
  constructor(conductor: string) {
    super(`Conductor ${conductor} already registered.`);
  }
}
export class DeployTemplateNotFound extends NotFound {
  constructor(template: string) {
    super(`Deploy template ${template} could not be found.`);
  }
}
export class DeployTemplateAlreadyExists extends Conflict {
  constructor(uuid: string) {
    super(`A deploy template with UUID ${uuid} already exists.`);
  }
}
export class DeployTemplateDuplicateName extends Conflict {
  constructor(name: string) {
    super(`A deploy template with name ${name} already exists.`);
  }
}
export class RunbookNotFound extends NotFound {
  constructor(runbook: string) {
    super(`Runbook ${runbook} could not be found.`);
  }
}
export class RunbookAlreadyExists extends Conflict {
  constructor(uuid: string) {
    super(`A runbook with UUID ${uuid} already exists.`);
  }
}
export class RunbookDuplicateName extends Conflict {
  constructor(name: string) {
    super(`A runbook with name ${name} already exists.`);
  }
}
export class AllocationNotFound extends NotFound {
  constructor(allocation: string) {
    super(`Allocation ${allocation} could not be found.`);
  }
}
export class AllocationAlreadyExists extends Conflict {
  constructor(uuid: string) {
    super(`An allocation with UUID ${uuid} already exists.`);
  }
}
export class AllocationDuplicateName extends Conflict {
  constructor(name: string) {
    super(`An allocation with name ${name} already exists.`);
  }
}
/** Allocating or backfilling failed (Ironic's AllocationFailed, a 500 with its message). */
export class AllocationFailed extends IronicError {
  constructor(uuid: string, error: string) {
    super(`Failed to process allocation ${uuid}: ${error}.`);
  }
}
export class NodeHistoryNotFound extends NotFound {
  constructor(history: string) {
    super(`Node history record ${history} could not be found.`);
  }
}
export class NodeInventoryNotFound extends NotFound {
  constructor(node: string) {
    super(`Node inventory record for node ${node} could not be found.`);
  }
}
export class BIOSSettingNotFound extends NotFound {
  constructor(node: string, name: string) {
    super(`Node ${node} doesn't have a BIOS setting '${name}'`);
  }
}
/** What the ramdisk sent cannot be processed (Ironic's InvalidNodeInventory). */
export class InvalidNodeInventory extends Invalid {
  constructor(node: string, reason: string) {
    super(`Inventory for node ${node} is invalid: ${reason}`);
  }
}
