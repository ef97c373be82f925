/**
 * Enrolling a fleet's machines in an Ironless (or Ironic) API as `redfish` nodes, over the API's
 * own HTTP interface as an operator's client would. A machine whose node already exists (same name)
 * is left as it is when it points at the same BMC, or its driver_info is updated with a JSON patch.
 *
 * NOTE: ports for the machines' NICs are not created: the ports API does not exist yet. Once it
 * does, `enrollMachine` is the place to add one `POST /v1/ports` per enabled NIC.
 */
import type { Fleet } from './fleet';
import type { VirtualMachine } from './machine';

/** The version the requests ask for; node names need 1.5, everything used here is older than 1.78. */
const API_VERSION = '1.78';

export interface EnrolledNode {
  readonly machine: VirtualMachine;
  readonly uuid: string;
  readonly name: string;
  readonly driver: string;
  readonly provisionState: string;
  /** created: new node; exists: already enrolled with this BMC; updated: driver_info changed to this BMC. */
  readonly action: 'created' | 'exists' | 'updated';
}

export class EnrollError extends Error {
  override readonly name = 'EnrollError';
}

interface Reply {
  status: number;
  body: Record<string, unknown> | undefined;
  text: string;
}

async function call(apiUrl: string, method: string, path: string, body?: unknown): Promise<Reply> {
  let res: Response;
  try {
    res = await fetch(`${apiUrl.replace(/\/+$/, '')}${path}`, {
      method,
      headers: {
        'X-OpenStack-Ironic-API-Version': API_VERSION,
        ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (err) {
    throw new EnrollError(`Cannot reach the API at ${apiUrl}: ${(err as Error).message}`);
  }
  const text = await res.text();
  let parsed: Record<string, unknown> | undefined;
  try {
    parsed = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed, text };
}

/** Ironic's error text from `{"error_message": "<json>"}`, else the raw body. */
function faultOf(reply: Reply): string {
  const message = reply.body?.error_message;
  if (typeof message === 'string') {
    try {
      const inner = JSON.parse(message) as { faultstring?: string; description?: string };
      return inner.faultstring ?? inner.description ?? message;
    } catch {
      return message;
    }
  }
  return reply.text.slice(0, 300);
}

function enrolled(machine: VirtualMachine, node: Record<string, unknown>, action: EnrolledNode['action']): EnrolledNode {
  return {
    machine,
    uuid: String(node.uuid),
    name: String(node.name),
    driver: String(node.driver),
    provisionState: String(node.provision_state),
    action,
  };
}

/** Enroll one machine as a redfish node named after it. */
export async function enrollMachine(fleet: Fleet, machine: VirtualMachine, apiUrl: string): Promise<EnrolledNode> {
  const driverInfo = fleet.driverInfo(machine);
  const created = await call(apiUrl, 'POST', '/v1/nodes', { name: machine.id, driver: 'redfish', driver_info: driverInfo });
  if (created.status === 201 && created.body) return enrolled(machine, created.body, 'created');
  if (created.status !== 409) {
    throw new EnrollError(`Could not enroll ${machine.id}: ${created.status} ${faultOf(created)}`);
  }
  const existing = await call(apiUrl, 'GET', `/v1/nodes/${encodeURIComponent(machine.id)}`);
  if (existing.status !== 200 || !existing.body) {
    throw new EnrollError(
      `Could not enroll ${machine.id}: ${faultOf(created)} (and reading it failed: ${existing.status} ${faultOf(existing)})`,
    );
  }
  const node = existing.body;
  const current = (node.driver_info ?? {}) as Record<string, unknown>;
  if (node.driver !== 'redfish') {
    throw new EnrollError(`A node named ${machine.id} already exists with driver ${String(node.driver)}; choose another prefix`);
  }
  if (current.redfish_address === driverInfo.redfish_address && current.redfish_system_id === driverInfo.redfish_system_id) {
    return enrolled(machine, node, 'exists');
  }
  const patch = Object.entries(driverInfo).map(([key, value]) => ({ op: 'add', path: `/driver_info/${key}`, value }));
  const updated = await call(apiUrl, 'PATCH', `/v1/nodes/${node.uuid}`, patch);
  if (updated.status !== 200 || !updated.body) {
    throw new EnrollError(
      `A node named ${machine.id} already exists for another BMC (${String(current.redfish_address)}) and could not be updated: ` +
        `${updated.status} ${faultOf(updated)}. Delete it or choose another prefix.`,
    );
  }
  return enrolled(machine, updated.body, 'updated');
}

/** Enroll every machine of the fleet, in order; stops at the first failure. */
export async function enrollFleet(fleet: Fleet, apiUrl: string): Promise<EnrolledNode[]> {
  const out: EnrolledNode[] = [];
  for (const machine of fleet.machines.values()) out.push(await enrollMachine(fleet, machine, apiUrl));
  return out;
}
