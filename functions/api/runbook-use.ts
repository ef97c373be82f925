/**
 * Finding a runbook, and running one: `PUT /v1/nodes/{node}/states/provision` with `runbook`
 * (1.92) instead of `clean_steps` or `service_steps` (Ironic master's `_handle_runbook`). The node
 * must be approved for it: below 1.112 by a trait equal to the runbook's name, from 1.112 by a
 * trait among the runbook's traits. Every Ironless caller is Ironic's admin, so the step policies
 * Ironic checks for a project's runbook always pass.
 */
import { ClientSideError, InvalidUuidOrName, NotAcceptable } from '#common/errors';
import { isOsloUuidLike } from '#common/ids';
import type { Node } from '#objects/node';
import type { Runbook } from '#objects/runbook';
import { argUuidOrName } from './args';
import type { ApiContext } from './context';
import type { ApiRequest } from './http';
import { atLeast } from './microversion';
import { isValidLogicalName } from './names';

/** Ironic's get_rpc_runbook: args.uuid_or_name, then the runbook by UUID or by name. */
export async function findRunbook(req: ApiRequest, ctx: ApiContext, ident: string): Promise<Runbook> {
  argUuidOrName('runbook_ident', ident);
  if (isOsloUuidLike(ident)) return ctx.stores.runbooks.get(ident);
  if (isValidLogicalName(ident, req.version)) return ctx.stores.runbooks.getByName(ident);
  throw new InvalidUuidOrName(ident);
}

export type RunbookStep = { interface: string; step: string; args?: Record<string, unknown> };

/** What a runbook puts in place of the request's steps. */
export interface RunbookSteps {
  readonly cleanSteps?: RunbookStep[];
  readonly serviceSteps?: RunbookStep[];
  readonly disableRamdisk: boolean;
}

/** The node's approval: a trait in common with the runbook (1.112), or its name (before). */
function checkApproved(req: ApiRequest, runbook: Runbook, node: Node): void {
  const nodeTraits = new Set(node.traits);
  if (atLeast(req.version, 112)) {
    if (runbook.traits.length === 0) {
      throw new ClientSideError(
        `Runbook ${runbook.uuid} has no traits configured. Please ask an administrator to add traits to the runbook.`,
      );
    }
    if (!runbook.traits.some((t) => nodeTraits.has(t))) {
      const listed = [...runbook.traits].sort().map((t) => `'${t}'`);
      throw new ClientSideError(
        `This runbook has not been approved for use on this node ${node.uuid}. The node does not have any of the runbook's traits [${listed.join(', ')}]. Please ask an administrator to add a matching trait to your node.`,
      );
    }
  } else if (!nodeTraits.has(runbook.name)) {
    throw new ClientSideError(
      `This runbook has not been approved for use on this node ${node.uuid}. Please ask an administrator to add it to your node traits.`,
    );
  }
}

/**
 * The steps of `runbook` for a provision request (1.92, which the request layer checks): refused when it is unknown
 * (404), when the node is not approved for it or the request also gives steps (400), and for a
 * verb other than clean or service (400).
 */
export async function runbookSteps(
  req: ApiRequest,
  ctx: ApiContext,
  node: Node,
  event: string,
  ident: string,
  given: { cleanSteps: unknown; serviceSteps: unknown },
): Promise<RunbookSteps> {
  const runbook = await findRunbook(req, ctx, ident);
  checkApproved(req, runbook, node);
  const steps = runbook.steps.map((s) => ({
    interface: String(s.interface),
    step: String(s.step),
    args: (s.args ?? {}) as Record<string, unknown>,
  }));
  const disableRamdisk = runbook.disable_ramdisk;
  const hasSteps = (value: unknown) => Array.isArray(value) && value.length > 0;
  if (event === 'clean') {
    if (hasSteps(given.cleanSteps)) throw new ClientSideError('Please provide either "clean_steps" or a runbook, but not both.');
    return { cleanSteps: steps, disableRamdisk };
  }
  if (event === 'service') {
    if (hasSteps(given.serviceSteps)) throw new ClientSideError('Please provide either "service_steps" or a runbook, but not both.');
    // Servicing without the ramdisk is API 1.108's.
    if (disableRamdisk && !atLeast(req.version, 108)) throw new NotAcceptable('disable_ramdisk is not acceptable in this API version');
    return { serviceSteps: steps, disableRamdisk };
  }
  throw new ClientSideError(`"runbooks" is only valid when setting target provision state to any of ['clean', 'service']`);
}
