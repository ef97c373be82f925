/**
 * The deploy guard: what a `cdk deploy` may do to the `live` aliases of the functions a rolling
 * upgrade shifts (api, conductor, dbsync), decided from the upgrade's state, which
 * `ironless upgrade` keeps in tags of the conductor function. Two kinds of custom resource use it:
 *
 * - `gate`, one per stack, which the functions depend on: it runs before CloudFormation touches
 *   their code or configuration, and fails the deployment (which then rolls back) while an upgrade
 *   is in progress — a deploy then would change `$LATEST` under the upgrade's feet.
 * - `live-version`, one per function: the version its `live` alias (an AWS::Lambda::Alias) points
 *   to. With `cdk-deploy` it is the version CloudFormation published of this deploy's code; with
 *   `ironless-upgrade` it is the version `live` had when the resource was created (a new stack:
 *   one published now) and it never changes afterwards, so CloudFormation never updates the alias
 *   again and the command alone moves it. The conductor's `live-version` also sets the
 *   `ironless:release` tag: at creation, and on every deploy that moves the alias.
 *
 * NOTE: the version a `live-version` resource answers is kept in its physical id
 * (`<function>:live@<version>`), because a custom resource cannot read the attributes it answered
 * last time, and answering anything else would make CloudFormation move the alias — or move it
 * back, to a version older than the data, when a later deploy rolls back.
 *
 * The SDK calls are ports, so the decisions are tested without AWS.
 */
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';

/** Tags of the conductor function, as `ironless upgrade` writes them (one definition, shared). */
import { TAGS } from '#common/upgrade-state';

export { TAGS };

/** Upgrade statuses after which a deploy is safe again. */
export const FINISHED_STATUSES: readonly string[] = ['complete', 'rolled-back'];

export const ALIAS = 'live';

export const ROLLOUTS = ['cdk-deploy', 'ironless-upgrade'] as const;
export type Rollout = (typeof ROLLOUTS)[number];

/** What the deploy guard needs of AWS. */
export interface GuardPorts {
  /** The stack's status (`UPDATE_IN_PROGRESS`, `UPDATE_ROLLBACK_IN_PROGRESS`, …). */
  stackStatus(stackId: string): Promise<string | undefined>;
  /** The physical id of one of the stack's resources; undefined while it does not exist. */
  physicalResourceId(stackId: string, logicalId: string): Promise<string | undefined>;
  /** A function's tags; `denied` when this function may not read them. */
  listTags(functionName: string): Promise<Readonly<Record<string, string>> | 'denied'>;
  tag(functionName: string, tags: Readonly<Record<string, string>>): Promise<void>;
  /** The version an alias routes to; undefined when there is no such alias. */
  aliasVersion(functionName: string, alias: string): Promise<string | undefined>;
  /** Publish `$LATEST` (once its last update is done); the new version. */
  publishVersion(functionName: string, description: string): Promise<string>;
  log(message: string, details?: Record<string, unknown>): void;
}

export type GuardEvent = CloudFormationCustomResourceEvent;
export interface GuardResult {
  readonly PhysicalResourceId: string;
  readonly Data?: Readonly<Record<string, string>>;
}

/** The status an `ironless:upgrade` tag value states (`… status=running`), or the whole value if it has no pairs. */
export function upgradeStatus(value: string): string {
  const pair = /(?:^|\s)status=(\S*)/.exec(value);
  if (pair) return pair[1] ?? '';
  return value.includes('=') ? '' : value.trim();
}

/**
 * Why a deploy must not proceed, from the conductor function's tags; undefined when no upgrade is
 * in progress. An `ironless:upgrade` tag whose status cannot be read counts as in progress.
 */
export function refusal(tags: Readonly<Record<string, string>>, where: { stackName: string; conductor: string }): string | undefined {
  const state = tags[TAGS.upgrade];
  if (state === undefined) return undefined;
  const status = upgradeStatus(state);
  if (FINISHED_STATUSES.includes(status)) return undefined;
  const message = tags[TAGS.message];
  return [
    `Refusing to deploy: a rolling upgrade of stack ${where.stackName} is in progress`,
    `(tag ${TAGS.upgrade} of function ${where.conductor}: "${state}"${message ? `; ${message}` : ''}).`,
    'A deploy now would change the functions the upgrade publishes and shifts.',
    `Finish it (npx ironless upgrade resume --stack ${where.stackName}) or roll it back`,
    `(npx ironless upgrade rollback --stack ${where.stackName}), then deploy again.`,
    `If no upgrade runs and the tag is stale: aws lambda untag-resource --resource <conductor ARN> --tag-keys ${TAGS.upgrade}`,
  ].join(' ');
}

/** CloudFormation is rolling back: resources go back to their previous properties, and nothing is refused. */
export function isRollback(stackStatus: string | undefined): boolean {
  return stackStatus !== undefined && stackStatus.endsWith('ROLLBACK_IN_PROGRESS');
}

export function stackNameOf(stackId: string): string {
  return /:stack\/([^/]+)\//.exec(stackId)?.[1] ?? stackId;
}

/** `<function>:live@<version>`: the physical id of a live-version resource. */
export function liveVersionId(functionName: string, version: string): string {
  return `${functionName}:${ALIAS}@${version}`;
}

export function parseLiveVersionId(id: string | undefined): { functionName: string; version: string } | undefined {
  const match = id === undefined ? null : new RegExp(`^(.+):${ALIAS}@(\\d+)$`).exec(id);
  return match ? { functionName: match[1] ?? '', version: match[2] ?? '' } : undefined;
}

type Props = Readonly<Record<string, unknown>>;

function text(props: Props, name: string): string {
  const value = props[name];
  if (typeof value !== 'string' || value === '')
    throw new Error(`Deploy guard: property ${name} is required (got ${JSON.stringify(value)})`);
  return value;
}

function optionalText(props: Props, name: string): string | undefined {
  const value = props[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

async function refuseDuringUpgrade(ports: GuardPorts, stackId: string, conductor: string): Promise<void> {
  const tags = await ports.listTags(conductor);
  if (tags === 'denied') {
    // Only the first deploy that adds the guard lacks the grant (it comes with that deploy); no
    // upgrade can have started before it, as the command needs the outputs that deploy adds.
    ports.log('Cannot read the conductor function’s tags yet (its grant arrives with this deploy); no upgrade can be running', {
      conductor,
    });
    return;
  }
  const reason = refusal(tags, { stackName: stackNameOf(stackId), conductor });
  if (reason !== undefined) throw new Error(reason);
}

async function gate(event: GuardEvent, ports: GuardPorts, rollingBack: boolean): Promise<GuardResult> {
  const result = { PhysicalResourceId: `${stackNameOf(event.StackId)}-deploy-gate` };
  if (rollingBack) return result;
  const conductor = await ports.physicalResourceId(event.StackId, text(event.ResourceProperties, 'ConductorLogicalId'));
  // A new stack (or one whose conductor is being created): nothing can be upgrading.
  if (conductor === undefined) return result;
  await refuseDuringUpgrade(ports, event.StackId, conductor);
  return result;
}

async function liveVersion(event: GuardEvent, ports: GuardPorts, rollingBack: boolean): Promise<GuardResult> {
  const props = event.ResourceProperties;
  const functionName = text(props, 'FunctionName');
  const rollout = text(props, 'Rollout') as Rollout;
  if (!ROLLOUTS.includes(rollout)) throw new Error(`Deploy guard: Rollout "${rollout}" must be one of ${ROLLOUTS.join(', ')}`);
  const release = optionalText(props, 'Release');
  const answer = (version: string): GuardResult => ({
    PhysicalResourceId: liveVersionId(functionName, version),
    Data: { Version: version },
  });

  if (rollout === 'cdk-deploy') {
    const version = text(props, 'Version');
    if (!rollingBack) await refuseDuringUpgrade(ports, event.StackId, text(props, 'UpgradeStateFunction'));
    if (release !== undefined) await ports.tag(functionName, { [TAGS.release]: release });
    ports.log('live follows this deploy', { functionName, version, rollingBack });
    return answer(version);
  }

  // ironless-upgrade: the version stays what it was, whatever this deploy's code.
  const previous = event.RequestType === 'Update' ? parseLiveVersionId(event.PhysicalResourceId) : undefined;
  if (previous !== undefined && previous.functionName === functionName) {
    ports.log('live left where it is (rollout ironless-upgrade)', { functionName, version: previous.version });
    return answer(previous.version);
  }
  // Created (a new stack, or this mode chosen for an existing one), or the function was replaced.
  const existing = await ports.aliasVersion(functionName, ALIAS);
  const version =
    existing ??
    (await ports.publishVersion(functionName, `Ironless ${release ?? ''} as first deployed; later releases arrive by ironless upgrade`));
  if (release !== undefined) {
    const tags = await ports.listTags(functionName);
    // An upgrade may already have recorded the release this alias runs: that one stays.
    if (tags === 'denied' || tags[TAGS.release] === undefined) await ports.tag(functionName, { [TAGS.release]: release });
  }
  ports.log(existing ? 'live adopted as it is' : 'live created on a version published now', { functionName, version });
  return answer(version);
}

/** The custom resources' handler (CDK's Provider framework calls it; a thrown error fails the deployment with its message). */
export async function onEvent(event: GuardEvent, ports: GuardPorts): Promise<GuardResult> {
  // The guard owns nothing that outlives it: the aliases are CloudFormation's AWS::Lambda::Alias.
  if (event.RequestType === 'Delete') return { PhysicalResourceId: event.PhysicalResourceId };
  const rollingBack = isRollback(await ports.stackStatus(event.StackId));
  const kind = event.ResourceProperties.Kind;
  if (kind === 'gate') return gate(event, ports, rollingBack);
  if (kind === 'live-version') return liveVersion(event, ports, rollingBack);
  throw new Error(`Deploy guard: unknown Kind ${JSON.stringify(kind)} (gate or live-version)`);
}
