/**
 * What `ironless upgrade --stack NAME` needs from the stack: the outputs that name everything it
 * works on (keys in `lib/outputs.ts`) and, optionally, a managed policy with exactly the calls it
 * makes on these resources, for the operator to attach to the role they run it as. The functions
 * themselves get none of these permissions.
 *
 * The command publishes versions of api, conductor and dbsync and shifts their `live` aliases
 * (PublishVersion, UpdateFunctionCode/Configuration, UpdateAlias), keeps its state in the conductor
 * function's tags, invokes dbsync (checks, migrations) and new conductor versions (a first
 * heartbeat), watches CloudWatch metrics and the dead-letter queues, reads the conductors table
 * (liveness) and the tables' descriptions, and reads this stack's outputs.
 */
import { Aws, CfnOutput, Fn, Stack } from 'aws-cdk-lib';
import type { LambdaRestApi } from 'aws-cdk-lib/aws-apigateway';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { ManagedPolicy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { STACK_OUTPUTS } from '../outputs';
import type { ConductorQueues } from './conductor-queues';
import type { Rollout } from './deploy-guard';

export interface UpgradeOperatorProps {
  readonly conductor: IFunction;
  readonly api: IFunction;
  readonly dbsync: IFunction;
  /** The http_basic authorizer; undefined with noauth. */
  readonly authorizer?: IFunction;
  readonly queues: ConductorQueues;
  readonly periodicFailures: IQueue;
  readonly restApi: LambdaRestApi;
  readonly tables: Readonly<Record<string, ITableV2>>;
  readonly rollout: Rollout;
  /** Make the UpgradeOperatorPolicy managed policy. @default true */
  readonly policy?: boolean;
}

/** The Lambda actions of an upgrade on the functions it upgrades (and their versions and aliases). */
export const UPGRADE_FUNCTION_ACTIONS = [
  'lambda:GetFunction',
  'lambda:GetFunctionConfiguration',
  'lambda:UpdateFunctionCode',
  'lambda:UpdateFunctionConfiguration',
  'lambda:PublishVersion',
  'lambda:ListVersionsByFunction',
  'lambda:GetAlias',
  'lambda:UpdateAlias',
] as const;
export const UPGRADE_TAG_ACTIONS = ['lambda:ListTags', 'lambda:TagResource', 'lambda:UntagResource'] as const;
/** Read on the conductors table: which conductor versions are alive. */
export const LIVENESS_TABLE = 'conductors';

export class UpgradeOperator extends Construct {
  readonly policy: ManagedPolicy | undefined;

  constructor(scope: Construct, id: string, props: UpgradeOperatorProps) {
    super(scope, id);
    const stack = Stack.of(this);
    // Outputs in the stack's own scope: their logical ids are the keys the command reads.
    const output = (key: string, value: string, description: string) => new CfnOutput(stack, key, { value, description });
    output(
      STACK_OUTPUTS.conductorFunctionName,
      props.conductor.functionName,
      'Conductor function (its tags hold the upgrade state and release)',
    );
    output(STACK_OUTPUTS.apiFunctionName, props.api.functionName, 'API function');
    output(STACK_OUTPUTS.dbsyncFunctionName, props.dbsync.functionName, 'dbsync function');
    if (props.authorizer) output(STACK_OUTPUTS.authorizerFunctionName, props.authorizer.functionName, 'http_basic authorizer function');
    output(STACK_OUTPUTS.conductorQueues, props.queues.environmentValue(), 'Conductor queues: JSON, conductor group → queue URL');
    const dlqs = [...props.queues.deadLetterQueues.values()];
    output(
      STACK_OUTPUTS.conductorDeadLetterQueues,
      Fn.join(
        ',',
        dlqs.map((q) => q.queueUrl),
      ),
      'Conductor dead-letter queue URLs, comma-separated',
    );
    output(STACK_OUTPUTS.periodicFailuresQueue, props.periodicFailures.queueUrl, 'Failed periodic conductor runs land in this queue');
    output(STACK_OUTPUTS.restApiName, props.restApi.restApiName, 'REST API name (API Gateway metrics: ApiName)');
    output(STACK_OUTPUTS.restApiStage, props.restApi.deploymentStage.stageName, 'REST API stage (API Gateway metrics: Stage)');
    output(
      STACK_OUTPUTS.rollout,
      props.rollout,
      'Who moves the live aliases after the first deploy: ironless-upgrade (the command) or cdk-deploy',
    );

    this.policy = props.policy === false ? undefined : this.makePolicy(props);
    if (this.policy) {
      output(
        STACK_OUTPUTS.upgradeOperatorPolicy,
        this.policy.managedPolicyArn,
        'What ironless upgrade --stack needs: attach this managed policy to the role you run it as',
      );
    }
  }

  private makePolicy(props: UpgradeOperatorProps): ManagedPolicy {
    const upgraded = [props.conductor, props.api, props.dbsync];
    // Unqualified ARNs for the function, `:*` for its versions and aliases (a Qualifier, UpdateAlias).
    const withVersions = (fns: IFunction[]) => fns.flatMap((fn) => [fn.functionArn, `${fn.functionArn}:*`]);
    const liveness = props.tables[LIVENESS_TABLE];
    if (!liveness) throw new Error(`UpgradeOperator: no "${LIVENESS_TABLE}" table among ${Object.keys(props.tables).join(', ')}`);
    return new ManagedPolicy(this, 'Policy', {
      description: `ironless upgrade --stack ${Stack.of(this).stackName}: publish and shift api, conductor and dbsync, watch them`,
      statements: [
        new PolicyStatement({ actions: [...UPGRADE_FUNCTION_ACTIONS], resources: withVersions(upgraded) }),
        new PolicyStatement({ actions: [...UPGRADE_TAG_ACTIONS], resources: upgraded.map((fn) => fn.functionArn) }),
        // dbsync: checks and migrations; the conductor: a new version's first heartbeat.
        new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: withVersions([props.dbsync, props.conductor]) }),
        // GetMetricData names metrics in its request, not resources: AWS accepts only "*".
        new PolicyStatement({ actions: ['cloudwatch:GetMetricData'], resources: ['*'] }),
        new PolicyStatement({
          actions: ['sqs:GetQueueAttributes'],
          resources: [...props.queues.deadLetterQueues.values()].map((q) => q.queueArn),
        }),
        new PolicyStatement({ actions: ['dynamodb:DescribeTable'], resources: Object.values(props.tables).map((t) => t.tableArn) }),
        new PolicyStatement({ actions: ['dynamodb:Scan', 'dynamodb:Query', 'dynamodb:GetItem'], resources: [liveness.tableArn] }),
        new PolicyStatement({ actions: ['cloudformation:DescribeStacks'], resources: [Aws.STACK_ID] }),
      ],
    });
  }
}
