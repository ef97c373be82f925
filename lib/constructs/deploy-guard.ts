/**
 * How `cdk deploy` and `ironless upgrade` share the `live` aliases of the functions an upgrade
 * shifts (api, conductor, dbsync), so neither undoes the other:
 *
 * - rollout `ironless-upgrade`: a deploy updates `$LATEST` (code, configuration) and the
 *   infrastructure around it, but `live` keeps the version it had — the command moves it, in
 *   Ironic's rolling-upgrade order (pinned conductors, pinned API, unpin). A new stack's `live`
 *   points to a version published at its first deploy.
 * - rollout `cdk-deploy`: `live` follows every deploy, as CDK does by default (development stacks).
 *
 * Either way a deploy that would change those functions fails, and rolls back, while an upgrade is
 * in progress (the `ironless:upgrade` tag of the conductor function, `functions/deploy-guard/`).
 *
 * Each alias stays a plain AWS::Lambda::Alias (its logical id unchanged, so existing stacks keep
 * it): only the version it names comes from a `live-version` custom resource, which in
 * `ironless-upgrade` answers the same version forever, so CloudFormation never updates the alias —
 * nor rolls it back. Event source mappings, permissions, API Gateway, Step Functions and
 * EventBridge keep naming `<function ARN>:live`.
 *
 * NOTE: CodeDeploy (LambdaDeploymentGroup) was the alternative: it shifts an alias by weights with
 * alarms, but only to the version CloudFormation just published, whose environment is the
 * template's — it cannot publish "the new code pinned to the old release" and then "unpinned", two
 * versions of one code with different environments, which is what Ironic's upgrade needs.
 *
 * NOTE: the guard function's grants on each guarded function live in a policy of their own (one
 * per function, beside it) that the guard function does not depend on: the functions depend on the
 * gate, the gate on the guard function, so a grant in its default policy would be a cycle; and one
 * policy for all three would make the conductor's live version wait for the api function, which
 * itself waits for the conductor's alias.
 */
import { createHash } from 'node:crypto';
import { Aws, CustomResource, Duration, Lazy, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Policy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { type CfnFunction, type Function as LambdaFunction, Version } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Provider } from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { ROLLOUTS, type Rollout } from '../../functions/deploy-guard/guard';
import { IronlessFunction, type LiveVersionChooser } from './function';

export { ROLLOUTS, type Rollout };

export interface DeployGuardProps {
  /** Who moves the `live` aliases of api, conductor and dbsync after their first deploy. */
  readonly rollout: Rollout;
  /** The release of the synthesized code: the conductor's `ironless:release` tag. */
  readonly release: string;
  /** @default RetentionDays.ONE_YEAR */
  readonly logRetention?: RetentionDays;
  readonly logsKey?: IKey;
}

export class DeployGuard extends Construct {
  readonly rollout: Rollout;
  readonly release: string;
  /** The guard function (`functions/deploy-guard/`). */
  readonly function: IronlessFunction;
  readonly provider: Provider;
  /** Runs before the guarded functions change; fails the deployment during an upgrade. */
  readonly gate: CustomResource;
  /** The functions whose `live` the guard keeps, the conductor first. */
  readonly guarded: LambdaFunction[] = [];
  private conductor: LambdaFunction | undefined;
  /** The grants that let the guard read the upgrade state (the conductor's tags). */
  private conductorGrants: Policy | undefined;

  constructor(scope: Construct, id: string, props: DeployGuardProps) {
    super(scope, id);
    if (!ROLLOUTS.includes(props.rollout)) throw new Error(`rollout "${String(props.rollout)}" must be one of ${ROLLOUTS.join(', ')}`);
    this.rollout = props.rollout;
    this.release = props.release;
    const stack = Stack.of(this);
    const logRetention = props.logRetention ?? RetentionDays.ONE_YEAR;
    this.function = new IronlessFunction(this, 'Handler', {
      name: 'deploy-guard',
      // Publishing waits for `$LATEST` to finish updating (five minutes at most).
      timeout: Duration.minutes(6),
      memorySize: 256,
      environment: {},
      logRetention,
      logsKey: props.logsKey,
    });
    this.function.function.addToRolePolicy(
      new PolicyStatement({
        actions: ['cloudformation:DescribeStacks', 'cloudformation:DescribeStackResource'],
        resources: [Aws.STACK_ID],
      }),
    );
    this.provider = new Provider(this, 'Provider', {
      onEventHandler: this.function.live,
      logGroup: new LogGroup(this, 'ProviderLogs', {
        retention: logRetention,
        encryptionKey: props.logsKey,
        removalPolicy: RemovalPolicy.RETAIN,
      }),
    });
    this.gate = new CustomResource(this, 'Gate', {
      serviceToken: this.provider.serviceToken,
      resourceType: 'Custom::IronlessDeployGate',
      properties: {
        Kind: 'gate',
        ConductorLogicalId: Lazy.string({
          produce: () => (this.conductor ? stack.resolve(stack.getLogicalId(this.cfnOf(this.conductor))) : ''),
        }),
        // Changes whenever a guarded function would: that deploy is checked before it touches them.
        Fingerprint: Lazy.string({ produce: () => this.fingerprint() }),
      },
    });
  }

  /**
   * The chooser of `live`'s version for a guarded function; the conductor's first (it carries the
   * upgrade state and the release tag).
   */
  liveVersion(options: { conductor?: boolean } = {}): LiveVersionChooser {
    return (scope, fn) => {
      if (options.conductor) this.conductor = fn;
      const conductor = this.conductor;
      if (!conductor) throw new Error('DeployGuard: choose the conductor’s live version before the other functions’');
      this.guarded.push(fn);
      fn.node.addDependency(this.gate);
      const grants = new Policy(scope, 'DeployGuardGrants', {
        statements: [
          new PolicyStatement({
            actions: ['lambda:GetAlias', 'lambda:GetFunctionConfiguration', 'lambda:PublishVersion'],
            resources: [fn.functionArn],
          }),
          // The upgrade state and the release are tags of the conductor.
          ...(options.conductor
            ? [new PolicyStatement({ actions: ['lambda:ListTags', 'lambda:TagResource'], resources: [fn.functionArn] })]
            : []),
        ],
      });
      const role = this.function.function.role;
      if (role) grants.attachToRole(role);
      const resource = new CustomResource(scope, 'LiveVersion', {
        serviceToken: this.provider.serviceToken,
        resourceType: 'Custom::IronlessLiveVersion',
        properties: {
          Kind: 'live-version',
          FunctionName: fn.functionName,
          Rollout: this.rollout,
          UpgradeStateFunction: conductor.functionName,
          ...(options.conductor ? { Release: this.release } : {}),
          // Only cdk-deploy publishes each deploy's code (CDK's version, named after its hash).
          ...(this.rollout === 'cdk-deploy' ? { Version: fn.currentVersion.version } : {}),
        },
      });
      if (options.conductor) this.conductorGrants = grants;
      resource.node.addDependency(grants, this.conductorGrants ?? grants);
      return Version.fromVersionAttributes(scope, 'LiveVersionOf', { lambda: fn, version: resource.getAttString('Version') });
    };
  }

  private cfnOf(fn: LambdaFunction): CfnFunction {
    return fn.node.defaultChild as CfnFunction;
  }

  /** A digest of what a deploy sets on the guarded functions (code, configuration) and of the rollout. */
  private fingerprint(): string {
    const stack = Stack.of(this);
    const functions = this.guarded.map((fn) => {
      const cfn = this.cfnOf(fn);
      return {
        code: cfn.code,
        environment: cfn.environment,
        handler: cfn.handler,
        runtime: cfn.runtime,
        memorySize: cfn.memorySize,
        timeout: cfn.timeout,
        architectures: cfn.architectures,
        layers: cfn.layers,
        vpcConfig: cfn.vpcConfig,
        reservedConcurrentExecutions: cfn.reservedConcurrentExecutions,
      };
    });
    const resolved = stack.resolve({ rollout: this.rollout, release: this.release, functions }) as unknown;
    return createHash('sha256').update(JSON.stringify(resolved)).digest('hex').slice(0, 32);
  }
}
