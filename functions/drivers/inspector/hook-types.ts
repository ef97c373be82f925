/** What an inspection hook is (Ironic's `InspectionHook` base class), apart from the hooks and their runner. */
import type { InspectorConfig } from '#common/config';
import type { InspectionTask } from '../base';

export type Inventory = Record<string, unknown>;
export type PluginData = Record<string, unknown>;

export interface InspectionHook {
  /** Ironic's entry point name (`[inspector]hooks` lists these). */
  readonly name: string;
  /** Hooks that must be enabled before this one. */
  readonly dependencies?: readonly string[];
  /** Runs before any hook's main part; may change `pluginData`, never the inventory. */
  preprocess?(task: InspectionTask, inventory: Inventory, pluginData: PluginData, config: InspectorConfig): Promise<void> | void;
  /** The main part: update the node and its ports from the data. */
  run?(task: InspectionTask, inventory: Inventory, pluginData: PluginData, config: InspectorConfig): Promise<void> | void;
}
