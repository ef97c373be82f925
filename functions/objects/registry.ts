/**
 * Every versioned object Ironless persists or sends over RPC, by name (Ironic's
 * `IronicObjectRegistry`). The release mapping lists exactly these (a test checks it), dbsync
 * checks and migrates the tables that hold them, and the RPC serializer finds classes here.
 */
import { Allocation } from './allocation';
import type { ObjectClass } from './base';
import { BIOSSetting } from './bios-setting';
import { Chassis } from './chassis';
import { Conductor } from './conductor';
import { DeployTemplate } from './deploy-template';
import { FirmwareComponent } from './firmware-component';
import { InspectionRule } from './inspection-rule';
import { Node } from './node';
import { NodeHistory } from './node-history';
import { NodeInventory } from './node-inventory';
import { Port } from './port';
import { Portgroup } from './portgroup';
import { Runbook } from './runbook';
import { VolumeConnector } from './volume-connector';
import { VolumeTarget } from './volume-target';

export const OBJECT_CLASSES = {
  Node,
  Port,
  Portgroup,
  Chassis,
  Conductor,
  DeployTemplate,
  Runbook,
  Allocation,
  NodeHistory,
  NodeInventory,
  VolumeConnector,
  VolumeTarget,
  BIOSSetting,
  FirmwareComponent,
  InspectionRule,
} as const satisfies Record<string, ObjectClass>;

export type ObjectName = keyof typeof OBJECT_CLASSES;

/** A registry: object name → class. Tests and other releases' fixtures pass their own. */
export type ObjectRegistry = Readonly<Record<string, ObjectClass>>;

export const OBJECT_REGISTRY: ObjectRegistry = OBJECT_CLASSES;
