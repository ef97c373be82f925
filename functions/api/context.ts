/**
 * What controllers get: configuration and the ports to data and conductor, built once per cold
 * start by the entry (or by a test with in-memory fakes).
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import type { ApiConfig } from '#common/config';
import type { ReleaseSelection } from '#common/releases';
import type { NodeStore } from '#db/nodes';
import type { Stores } from '#db/stores';
import type { ConductorRpcClient } from '#rpc/client';
import type { ConductorRing } from '#rpc/ring';
import type { ApiVersion } from './microversion';
import type { UpgradeView } from './upgrade-status';

export interface ApiContext {
  readonly config: ApiConfig;
  readonly release: ReleaseSelection;
  /** Highest version this API serves: the pinned release's `api`. */
  readonly maxVersion: ApiVersion;
  /** The node store (also `stores.nodes`), the one nearly every controller uses. */
  readonly nodes: NodeStore;
  /** Every store: ports, portgroups, chassis, conductors, deploy templates, allocations, history. */
  readonly stores: Stores;
  readonly rpc: ConductorRpcClient;
  /** The live conductors and which one serves a node (Ironic's hash ring). */
  readonly conductors: ConductorRing;
  readonly log: Logger;
  /** `GET /ironless/v1/upgrade` (the rolling upgrade, for the web console); absent: 404. */
  readonly upgradeStatus?: () => Promise<UpgradeView>;
}
