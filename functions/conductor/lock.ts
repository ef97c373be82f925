/**
 * Node locks held by the conductor. A flow started by the API arrives with the lock the API took
 * for it (its token is in the message); the conductor keeps using that token, so the lock passes
 * from API to RPC handler to Step Functions execution without ever being free in between.
 */
import type { LockOwner } from '#db/nodes';
import type { ConductorContext } from './context';

export function lockOwner(ctx: ConductorContext, token: string): LockOwner {
  return { host: ctx.config.hostname, token, ttlSeconds: ctx.config.lockTtlSeconds };
}
