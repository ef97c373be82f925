/**
 * Every store, built once per cold start from one DynamoDB client, the physical table names and
 * the release selection (which decides the object versions items are written at).
 */
import { type AllocationStore, DynamoAllocationStore } from './allocations';
import { type BiosSettingStore, DynamoBiosSettingStore } from './bios-settings';
import { DynamoFirmwareComponentStore, type FirmwareComponentStore } from './firmware-components';
import { type ChassisStore, DynamoChassisStore } from './chassis';
import { type ConductorStore, DynamoConductorStore } from './conductors';
import { type DeployTemplateStore, DynamoDeployTemplateStore } from './deploy-templates';
import { DynamoInspectionRuleStore, type InspectionRuleStore } from './inspection-rules';
import { DynamoNodeHistoryStore, type NodeHistoryStore } from './node-history';
import { DynamoNodeInventoryStore, type NodeInventoryStore } from './node-inventory';
import { DynamoNodeStore, type NodeStore } from './nodes';
import { DynamoPortgroupStore, type PortgroupStore } from './portgroups';
import { DynamoPortStore, type PortStore } from './ports';
import { DynamoRunbookStore, type RunbookStore } from './runbooks';
import type { StoreContext } from './table';
import { DynamoVolumeConnectorStore, type VolumeConnectorStore } from './volume-connectors';
import { DynamoVolumeTargetStore, type VolumeTargetStore } from './volume-targets';

export interface Stores {
  readonly nodes: NodeStore;
  readonly ports: PortStore;
  readonly portgroups: PortgroupStore;
  readonly chassis: ChassisStore;
  readonly conductors: ConductorStore;
  readonly deployTemplates: DeployTemplateStore;
  readonly runbooks: RunbookStore;
  readonly allocations: AllocationStore;
  readonly nodeHistory: NodeHistoryStore;
  readonly nodeInventory: NodeInventoryStore;
  readonly volumeConnectors: VolumeConnectorStore;
  readonly volumeTargets: VolumeTargetStore;
  readonly biosSettings: BiosSettingStore;
  readonly firmwareComponents: FirmwareComponentStore;
  readonly inspectionRules: InspectionRuleStore;
}

export function createStores(ctx: StoreContext): Stores {
  return {
    nodes: new DynamoNodeStore(ctx),
    ports: new DynamoPortStore(ctx),
    portgroups: new DynamoPortgroupStore(ctx),
    chassis: new DynamoChassisStore(ctx),
    conductors: new DynamoConductorStore(ctx),
    deployTemplates: new DynamoDeployTemplateStore(ctx),
    runbooks: new DynamoRunbookStore(ctx),
    allocations: new DynamoAllocationStore(ctx),
    nodeHistory: new DynamoNodeHistoryStore(ctx),
    nodeInventory: new DynamoNodeInventoryStore(ctx),
    volumeConnectors: new DynamoVolumeConnectorStore(ctx),
    volumeTargets: new DynamoVolumeTargetStore(ctx),
    biosSettings: new DynamoBiosSettingStore(ctx),
    firmwareComponents: new DynamoFirmwareComponentStore(ctx),
    inspectionRules: new DynamoInspectionRuleStore(ctx),
  };
}
