/**
 * A conductor service's stable identity, after nova's stable-compute-UUID spec: nova-compute keeps
 * its node's UUID once and refuses to start when the record for that UUID names another host,
 * since carrying on would orphan the instances the old identity holds.
 *
 * Here a conductor service is one conductor group of one conductor function, consuming one SQS
 * queue; each published version serving the group is an instance of it (`conductor:<version>` in
 * `GET /v1/conductors`). The first version to start records the service with a new UUID, its stable
 * name (`<function>:live[:<group>]`) and its queue, and every environment of every later version
 * checks at its cold start that its own environment (function name, CONDUCTOR_QUEUES) still
 * describes the same service:
 *
 * - the group's record names another queue: the queue was replaced, and the messages of the
 *   group's nodes wait in the old one;
 * - the queue's record names another group or function: a conductor group was renamed (or a second
 *   stack shares the tables), and this version would serve the old group's queue under a new name
 *   while the nodes still name the old group.
 *
 * Either refuses: `verifyServiceIdentities` throws, the conductor's init fails with the reason in
 * its log, and Lambda fails every invocation of that version (its messages stay on the queue and go
 * to the dead-letter queue), as nova-compute refuses to start.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { newUuid } from '#common/ids';
import type { ConductorService, ConductorStore } from '#db/conductors';

/** The alias every version is reached through: the stable part of a conductor's name. */
export const LIVE_ALIAS = 'live';

/** Why a conductor refuses to run: its environment describes another service than the one recorded. */
export class ConductorIdentityMismatch extends Error {
  override readonly name = 'ConductorIdentityMismatch';
}

/** The stable name of a conductor function's service for a group: `<function>:live[:<group>]`. */
export function serviceName(fn: string, group = ''): string {
  return group === '' ? `${fn}:${LIVE_ALIAS}` : `${fn}:${LIVE_ALIAS}:${group}`;
}

/** A queue's name: the last part of its URL (the endpoint before it differs between SDK and stack). */
export function queueName(url: string): string {
  return url.replace(/\/+$/, '').split('/').pop() ?? url;
}

export interface ExpectedService {
  readonly function: string;
  readonly conductorGroup: string;
  readonly queue: string;
}

/** The services a version's environment says it is: one per group of CONDUCTOR_QUEUES. */
export function expectedServices(fn: string, conductorQueues: Readonly<Record<string, string>>): ExpectedService[] {
  return Object.entries(conductorQueues).map(([group, url]) => ({ function: fn, conductorGroup: group, queue: queueName(url) }));
}

const REFUSAL =
  'Refusing to run, as nova-compute does when its identity changed. Restore the environment, or retire the old service ' +
  '(after moving its nodes and draining its queue) by deleting its items conductor-service/<function>/<group> and ' +
  'conductor-queue/<queue> from the uniques table.';

/** Why `expected` is not the service its records describe; undefined when they agree. */
export function mismatch(
  expected: ExpectedService,
  byGroup: ConductorService | undefined,
  byQueue: ConductorService | undefined,
): string | undefined {
  const group = `conductor group "${expected.conductorGroup}" of ${expected.function}`;
  if (byGroup !== undefined && byGroup.queue !== expected.queue) {
    return (
      `The ${group} is conductor service ${byGroup.uuid}, which consumes queue ${byGroup.queue}, but this version's ` +
      `CONDUCTOR_QUEUES gives it queue ${expected.queue}: the messages of its nodes would be left in ${byGroup.queue}. ${REFUSAL}`
    );
  }
  if (byQueue !== undefined && (byQueue.conductorGroup !== expected.conductorGroup || byQueue.function !== expected.function)) {
    return (
      `Queue ${expected.queue} belongs to conductor service ${byQueue.uuid} (conductor group "${byQueue.conductorGroup}" of ` +
      `${byQueue.function}), but this version serves it as the ${group} (a renamed conductor group?): the nodes of ` +
      `group "${byQueue.conductorGroup}" would lose their conductor. ${REFUSAL}`
    );
  }
  if (byGroup === undefined || byQueue === undefined || byGroup.uuid !== byQueue.uuid) {
    return `The identity records of the ${group} and of queue ${expected.queue} disagree (one is missing or names another service). ${REFUSAL}`;
  }
  return undefined;
}

export interface IdentityOptions {
  readonly log: Logger;
  readonly now?: () => number;
  readonly newId?: () => string;
}

/**
 * Check (creating on first use) the identity of every service this version's environment names;
 * throws ConductorIdentityMismatch when one was recorded differently.
 */
export async function verifyServiceIdentities(
  store: ConductorStore,
  expected: readonly ExpectedService[],
  options: IdentityOptions,
): Promise<ConductorService[]> {
  const services: ConductorService[] = [];
  for (const e of expected) services.push(await verifyOne(store, e, options));
  return services;
}

async function verifyOne(store: ConductorStore, e: ExpectedService, options: IdentityOptions): Promise<ConductorService> {
  // Two versions may start together on a new stack: whoever loses the creation reads the winner's.
  for (let attempt = 0; attempt < 3; attempt++) {
    const { byGroup, byQueue } = await store.findService(e.function, e.conductorGroup, e.queue);
    if (byGroup === undefined && byQueue === undefined) {
      const service: ConductorService = {
        uuid: (options.newId ?? newUuid)(),
        name: serviceName(e.function, e.conductorGroup),
        function: e.function,
        conductorGroup: e.conductorGroup,
        queue: e.queue,
        createdAt: new Date((options.now ?? Date.now)()).toISOString(),
      };
      if (await store.createService(service)) {
        options.log.info('Conductor service identity created', { ...service });
        return service;
      }
      continue;
    }
    const problem = mismatch(e, byGroup, byQueue);
    // One of the pair unseen: maybe the other half of a creation seen mid-way; read once more.
    if (problem !== undefined && (byGroup === undefined || byQueue === undefined) && attempt < 2) continue;
    if (problem !== undefined) {
      options.log.error(problem, { expected: { ...e }, recorded: { byGroup, byQueue } });
      throw new ConductorIdentityMismatch(problem);
    }
    return byGroup as ConductorService;
  }
  throw new Error(`Could not record the identity of conductor group "${e.conductorGroup}" of ${e.function}: its records keep changing`);
}
