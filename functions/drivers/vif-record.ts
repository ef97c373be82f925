/**
 * Where a port or portgroup records the tenant VIF attached to it (Ironic's VIFPortIDMixin):
 * shared by the `flat` interface and its trait based networking path.
 */
import type { Port } from '#objects/port';
import { Portgroup } from '#objects/portgroup';
import type { NetworkTask } from './base';

/** The `internal_info` key holding the attached tenant VIF. */
export const TENANT_VIF_KEY = 'tenant_vif_port_id';

export type PortLike = Port | Portgroup;

export function isPortgroup(obj: PortLike): obj is Portgroup {
  return obj instanceof Portgroup;
}

/** The VIF attached to `obj`, if any. */
export function attachedVif(obj: PortLike): string | undefined {
  const vif = obj.internal_info[TENANT_VIF_KEY];
  return typeof vif === 'string' && vif !== '' ? vif : undefined;
}

export async function savePortLike(task: NetworkTask, obj: PortLike): Promise<void> {
  if (isPortgroup(obj)) await task.savePortgroup(obj);
  else await task.savePort(obj);
}

/** Record `vifId` on `obj` (a conditional write: a port changed meanwhile fails with 409). */
export async function recordVif(task: NetworkTask, obj: PortLike, vifId: string): Promise<void> {
  obj.internal_info = { ...obj.internal_info, [TENANT_VIF_KEY]: vifId };
  await savePortLike(task, obj);
  task.log.info('VIF attached', { node: task.node.uuid, vif: vifId, to: obj.uuid });
}
