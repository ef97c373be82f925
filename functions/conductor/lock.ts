/**
 * Node locks held by the conductor. A flow started by the API arrives with the lock the API took
 * for it (its token is in the message); the conductor keeps using that token, so the lock passes
 * from API to RPC handler to Step Functions execution without ever being free in between.
 */
import type { LockOwner } from '#db/nodes';
import type { ConductorContext } from './context';
import { serviceName } from './identity';

export function lockOwner(ctx: ConductorContext, token: string): LockOwner {
  // The reservation names the conductor through its alias, which every version answers to: a lock
  // taken by one version and finished by the next names the same conductor (not a retired version).
  return { host: serviceName(ctx.config.functionName), token, ttlSeconds: ctx.config.lockTtlSeconds };
}
