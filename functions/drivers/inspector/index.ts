/**
 * The one `agent` inspect interface the hardware types offer, with what it reads from the
 * deployment: the `[inspector]` options, fast track, and the release this service is pinned to.
 */
import { type InspectorConfig, type AgentConfig, loadAgentConfig, loadInspectorConfig } from '#common/config';
import { type ReleaseSelection, compareVersionStrings, releaseFromEnv } from '#common/releases';
import type { Node } from '#objects/node';
import { METHOD_VERSIONS } from '#rpc/messages';
import { fastTrackEnabled } from '../agent/deploy';
import type { Driver, Task } from '../base';
import { createAgentInspect } from './agent';

/**
 * Why a service of `release` may not start in-band inspection: pinned to a release whose RPC API
 * lacks `continue_inspection`, it could not deliver the ramdisk's data to a conductor (and an
 * older conductor could not process it). Undefined when it may.
 */
export function inBandInspectionRefusal(release: ReleaseSelection): string | undefined {
  const needed = METHOD_VERSIONS.continue_inspection;
  if (compareVersionStrings(release.rpcVersionCap, needed) >= 0) return undefined;
  return (
    `In-band inspection needs RPC API ${needed} (continue_inspection) to hand the ramdisk's data to a conductor, ` +
    `above RPC ${release.rpcVersionCap} of release ${release.release} this service is pinned to. ` +
    'Inspect the node once every service runs the new release unpinned, or with an out-of-band inspect interface.'
  );
}

let resolver: ((task: Task) => Driver) | undefined;
let inspectorConfig: InspectorConfig | undefined;
let agentConfig: AgentConfig | undefined;
let release: ReleaseSelection | undefined;

/** The registry tells the interface how to load a node's other interfaces (no import cycle). */
export function setInspectorDriverResolver(resolve: (task: Task) => Driver): void {
  resolver = resolve;
}

/** Replace the deployment's `[inspector]` options (unit tests). */
export function setInspectorConfig(replacement: InspectorConfig | undefined): void {
  inspectorConfig = replacement;
}

function fastTrack(node: Node): boolean {
  try {
    return fastTrackEnabled(node, (agentConfig ??= loadAgentConfig()));
  } catch {
    return false; // an unreadable driver_info.fast_track: as if off (deploys refuse it with its message)
  }
}

export const agentInspect = createAgentInspect({
  driverOf: (task) => {
    if (resolver === undefined) throw new Error('agent inspect: no driver resolver registered');
    return resolver(task);
  },
  config: () => (inspectorConfig ??= loadInspectorConfig()),
  fastTrack,
  refusal: () => inBandInspectionRefusal((release ??= releaseFromEnv())),
});
