/**
 * The Ironless stack: API Gateway (REST API) → `api` alias `live` → SQS per conductor group →
 * `conductor` alias `live` → the steps state machine → DynamoDB. Scheduled periodic tasks invoke
 * the conductor too. Settings are shared with the local stack (`lib/settings.ts`).
 */
import { CfnOutput, Duration, RemovalPolicy, Size, Stack, type StackProps } from 'aws-cdk-lib';
import type { LambdaRestApi } from 'aws-cdk-lib/aws-apigateway';
import { SecurityGroup, Subnet, Vpc } from 'aws-cdk-lib/aws-ec2';
import { Rule, RuleTargetInput, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction as LambdaTarget } from 'aws-cdk-lib/aws-events-targets';
import { Policy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { AwsCustomResource, AwsCustomResourcePolicy, PhysicalResourceId } from 'aws-cdk-lib/custom-resources';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { ENV } from '../functions/common/config';
import { groupLabel, queueSettings } from '../functions/rpc/queues';
import {
  type ApiExposure,
  DEFAULT_API_RESERVED_CONCURRENCY,
  DEFAULT_AUTHORIZER_RESERVED_CONCURRENCY,
  reservedConcurrency,
  validateApiExposure,
} from './api-exposure';
import { BasicAuth } from './constructs/basic-auth';
import { BootIsos, CONDUCTOR_TMP_GIB } from './constructs/boot-isos';
import { RamdiskLogs } from './constructs/ramdisk-logs';
import { ramdiskLogsEnvironment } from './ramdisk-logs-settings';
import { ConductorQueues } from './constructs/conductor-queues';
import { DeployGuard, type Rollout } from './constructs/deploy-guard';
import { IronlessFunction } from './constructs/function';
import { LogsKey } from './constructs/logs-key';
import { Operations } from './constructs/operations';
import { IronlessApi } from './constructs/rest-api';
import { StepsMachine, type StepsLogging } from './constructs/steps-machine';
import { Tables } from './constructs/tables';
import { UpgradeOperator } from './constructs/upgrade-operator';
import { WebConsole } from './constructs/web-console';
import { RELEASE_MAPPING } from '../functions/common/releases';
import { tableOutputKey } from '../functions/db/schema';
import { conductorCode } from './conductor-code';
import { periodicSchedule } from './periodic-schedule';
import { DEFAULT_SETTINGS, FUNCTION_MEMORY_MB, type IronlessSettings, settingsEnvironment, validateSettings } from './settings';

/** Where the conductor runs when it must reach BMCs and agents on private networks. */
export interface ConductorNetwork {
  readonly vpcId: string;
  readonly availabilityZones: string[];
  /** Private subnets with a route to the BMC and provisioning networks. */
  readonly subnetIds: string[];
  /** @default a new security group allowing all outbound traffic */
  readonly securityGroupIds?: string[];
}

export interface IronlessStackProps extends StackProps {
  /** Overrides of the shared settings. @default DEFAULT_SETTINGS */
  readonly settings?: Partial<IronlessSettings>;
  /** Run the conductor in a VPC. @default no VPC */
  readonly conductorNetwork?: ConductorNetwork;
  /**
   * How the API is exposed and limited: endpoint (REGIONAL, or PRIVATE with its VPC endpoints),
   * the explicit opt-in a noauth public API needs, throttling, reserved concurrency, WAF.
   * @default REGIONAL, throttled, reserved concurrency (see `lib/api-exposure.ts`)
   */
  readonly api?: ApiExposure;
  /** The SNS topic alarms notify (its ARN). @default a new topic (output AlarmTopic) for you to subscribe to */
  readonly alarmTopicArn?: string;
  /** Add a CloudWatch dashboard of the alarms and the main metrics. @default false */
  readonly dashboard?: boolean;
  /** What step executions log. @default errors only, without execution data (step arguments, task tokens) */
  readonly stepsLogging?: StepsLogging;
  /** How long every log group keeps its events. @default RetentionDays.ONE_YEAR */
  readonly logRetention?: RetentionDays;
  /**
   * With `settings.authStrategy` `http_basic`: the secret holding the htpasswd entries.
   * @default a new secret, to be given its value after deploying
   */
  readonly htpasswdSecret?: ISecret;
  /**
   * Who moves the `live` aliases of api, conductor and dbsync once they exist (`lib/constructs/deploy-guard.ts`):
   * `ironless-upgrade` — a deploy updates their `$LATEST` and the infrastructure, and `ironless upgrade`
   * shifts `live` in Ironic's rolling-upgrade order; `cdk-deploy` — `live` follows every deploy.
   * Either way a deploy refuses while an upgrade is in progress, and a new stack starts with working aliases.
   * @default 'ironless-upgrade'
   */
  readonly rollout?: Rollout;
  /** The release of the code being synthesized (a row of functions/common/releases.ts): the conductor's `ironless:release` tag. @default 'master' */
  readonly release?: string;
  /** Make the UpgradeOperatorPolicy managed policy (what `ironless upgrade --stack` needs). @default true */
  readonly upgradeOperatorPolicy?: boolean;
}

/** Who moves the `live` aliases unless told: the product's own rolling upgrade. */
export const DEFAULT_ROLLOUT: Rollout = 'ironless-upgrade';

export class IronlessStack extends Stack {
  readonly api: LambdaRestApi;
  readonly apiFunction: IronlessFunction;
  readonly conductor: IronlessFunction;
  /** `ironless dbsync` inside AWS: version checks and online data migrations next to the tables. */
  readonly dbsync: IronlessFunction;
  readonly steps: StepsMachine;
  readonly queues: ConductorQueues;
  readonly tables: Tables;
  /** The bucket of the agent ISOs the conductor builds (redfish virtual media with a kernel and ramdisk). */
  readonly bootIsos: BootIsos;
  /** The bucket the conductor keeps the ramdisk's logs in (`settings.deployLogsCollect`). */
  readonly ramdiskLogs: RamdiskLogs;
  /** The authorizer and its secret, with `http_basic`. */
  readonly auth: BasicAuth | undefined;
  /** The web console, at `<ApiUrl>ui/`. */
  readonly webConsole: WebConsole;
  /** The REST API with its endpoint, policies, throttling and optional web ACL. */
  readonly restApi: IronlessApi;
  /** Failed periodic (EventBridge) invocations of the conductor land here. */
  readonly periodicFailures: Queue;
  readonly operations: Operations;
  /** Encrypts every log group and the alarm topic. */
  readonly logsKey: LogsKey;
  /** How long every log group keeps its events. */
  readonly logRetention: RetentionDays;
  /** The S3 buckets s3:// images may come from (the conductor reads their objects). */
  readonly imageBuckets: readonly string[];
  /** Keeps `cdk deploy` and `ironless upgrade` from undoing each other on the `live` aliases. */
  readonly deployGuard: DeployGuard;
  /** The outputs and the managed policy `ironless upgrade --stack` uses. */
  readonly upgradeOperator: UpgradeOperator;

  constructor(scope: Construct, id: string, props: IronlessStackProps = {}) {
    super(scope, id, props);
    const settings: IronlessSettings = { ...DEFAULT_SETTINGS, ...(props.settings ?? {}) };
    validateSettings(settings);
    const exposure: ApiExposure = props.api ?? {};
    validateApiExposure(exposure, settings.authStrategy);
    const logRetention = (this.logRetention = props.logRetention ?? RetentionDays.ONE_YEAR);
    this.logsKey = new LogsKey(this, 'LogsKey');
    const logs = { logRetention, logsKey: this.logsKey.key };
    const release = props.release ?? 'master';
    if (!(release in RELEASE_MAPPING)) {
      throw new Error(
        `release "${release}" is not a release of this code (functions/common/releases.ts: ${Object.keys(RELEASE_MAPPING).join(', ')})`,
      );
    }
    this.deployGuard = new DeployGuard(this, 'DeployGuard', { rollout: props.rollout ?? DEFAULT_ROLLOUT, release, ...logs });

    this.tables = new Tables(this, 'Tables');
    this.queues = new ConductorQueues(this, 'ConductorQueues', {
      groups: settings.conductorGroups,
      settings: queueSettings(settings.conductorTimeoutSeconds),
    });

    const stepsName = `${this.stackName}-steps`;
    const stepsArn = StepsMachine.arnFor(this, stepsName);
    const common = {
      ...this.tables.environment(),
      ...settingsEnvironment(settings),
      ...ramdiskLogsEnvironment(settings),
      [ENV.conductorQueues]: this.queues.environmentValue(),
    };

    this.bootIsos = new BootIsos(this, 'BootIsos');
    this.ramdiskLogs = new RamdiskLogs(this, 'RamdiskLogs', { daysToExpire: settings.deployLogsDaysToExpire });
    // Ironic's [agent]api_ca_file and [DEFAULT]isolinux_bin/ldlinux_c32: read now, carried in the
    // conductor's code (no room in its environment, and a Lambda has no conductor host).
    const code = conductorCode(settings);
    const network = props.conductorNetwork;
    const vpc = network
      ? Vpc.fromVpcAttributes(this, 'ConductorVpc', {
          vpcId: network.vpcId,
          availabilityZones: network.availabilityZones,
          privateSubnetIds: network.subnetIds,
        })
      : undefined;
    this.conductor = new IronlessFunction(this, 'Conductor', {
      name: 'conductor',
      timeout: Duration.seconds(settings.conductorTimeoutSeconds),
      memorySize: FUNCTION_MEMORY_MB.conductor,
      // Building an agent ISO streams its kernel and ramdisk through /tmp (an IPA ramdisk is some 500 MiB).
      ephemeralStorageSize: Size.gibibytes(CONDUCTOR_TMP_GIB),
      environment: {
        ...common,
        [ENV.stepsStateMachineArn]: stepsArn,
        [ENV.bootIsoBucket]: this.bootIsos.bucket.bucketName,
        [ENV.logsBucket]: this.ramdiskLogs.bucket.bucketName,
        ...code.environment,
      },
      files: code.files,
      liveVersion: this.deployGuard.liveVersion({ conductor: true }),
      ...logs,
      ...(vpc && network
        ? {
            vpc,
            vpcSubnets: { subnets: network.subnetIds.map((subnetId, i) => Subnet.fromSubnetId(this, `ConductorSubnet${i}`, subnetId)) },
            securityGroups: network.securityGroupIds?.map((sg, i) => SecurityGroup.fromSecurityGroupId(this, `ConductorSg${i}`, sg)),
          }
        : {}),
    });
    this.tables.grantReadWrite(this.conductor.function);
    this.bootIsos.grantConductor(this.conductor.function);
    this.ramdiskLogs.grantConductor(this.conductor.function);
    this.imageBuckets = settings.imageBuckets;
    this.grantImageBuckets(settings.imageBuckets);
    this.conductor.function.addToRolePolicy(new PolicyStatement({ actions: ['states:StartExecution'], resources: [stepsArn] }));
    this.conductor.function.addToRolePolicy(
      new PolicyStatement({
        actions: [
          'states:SendTaskSuccess',
          'states:SendTaskFailure',
          'states:SendTaskHeartbeat',
          'states:DescribeExecution',
          'states:StopExecution',
        ],
        resources: [stepsArn, `${stepsArn.replace(':stateMachine:', ':execution:')}:*`],
      }),
    );

    this.steps = new StepsMachine(this, 'Steps', {
      conductor: this.conductor.live,
      stateMachineName: stepsName,
      numbers: {
        HeartbeatSeconds: settings.heartbeatTimeoutSeconds,
        CallbackTimeoutSeconds: settings.callbackTimeoutSeconds,
        StepTimeoutSeconds: settings.stepTimeoutSeconds,
      },
      logging: props.stepsLogging,
      ...logs,
    });

    const batchSize = queueSettings(settings.conductorTimeoutSeconds).batchSize;
    for (const [group, queue] of this.queues.queues) {
      const maxConcurrency = settings.conductorGroupConcurrency[group];
      this.conductor.live.addEventSource(
        new SqsEventSource(queue, {
          batchSize,
          reportBatchItemFailures: true,
          ...(maxConcurrency !== undefined ? { maxConcurrency } : {}),
        }),
      );
    }
    // A periodic run that fails leaves a trace an alarm sees: EventBridge's own delivery failures
    // (its target DLQ) and the conductor's failed asynchronous invocations (on-failure destination).
    this.periodicFailures = new Queue(this, 'PeriodicFailures', {
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    this.conductor.live.configureAsyncInvoke({ onFailure: new SqsDestination(this.periodicFailures) });
    for (const [task, everySeconds] of Object.entries(periodicSchedule(settings))) {
      new Rule(this, `Periodic-${task}`, {
        description: `Ironless conductor periodic task ${task}`,
        schedule: Schedule.rate(Duration.seconds(everySeconds)),
        targets: [
          new LambdaTarget(this.conductor.live, {
            event: RuleTargetInput.fromObject({ entry: 'periodic', task }),
            deadLetterQueue: this.periodicFailures,
          }),
        ],
      });
    }
    // A conductor version registers on its first invocation; the first scheduled heartbeat can be a
    // minute away, and until then the API finds no live conductor (503). So each deployment of a
    // new conductor version beats once, at once: the resource's id is the version, so a new
    // version is an update that invokes it again.
    const beat = {
      service: 'Lambda',
      action: 'invoke',
      parameters: {
        FunctionName: this.conductor.live.functionArn,
        InvocationType: 'RequestResponse',
        Payload: JSON.stringify({ entry: 'periodic', task: 'conductor_heartbeat' }),
      },
      physicalResourceId: PhysicalResourceId.of(`conductor-${this.conductor.live.version.version}`),
    };
    new AwsCustomResource(this, 'RegisterConductor', {
      onCreate: beat,
      onUpdate: beat,
      installLatestAwsSdk: false,
      // The provider function's log group, kept and encrypted like the others (not left to Lambda).
      logGroup: new LogGroup(this, 'RegisterConductorLogs', {
        retention: logRetention,
        encryptionKey: this.logsKey.key,
        removalPolicy: RemovalPolicy.RETAIN,
      }),
      policy: AwsCustomResourcePolicy.fromStatements([
        new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [this.conductor.live.functionArn] }),
      ]),
    });

    this.apiFunction = new IronlessFunction(this, 'Api', {
      name: 'api',
      timeout: Duration.seconds(settings.apiTimeoutSeconds),
      memorySize: FUNCTION_MEMORY_MB.api,
      environment: {
        ...common,
        [ENV.conductorFunction]: this.conductor.live.functionArn,
        [ENV.logsBucket]: this.ramdiskLogs.bucket.bucketName,
      },
      reservedConcurrentExecutions: reservedConcurrency(exposure.apiReservedConcurrency, DEFAULT_API_RESERVED_CONCURRENCY),
      liveVersion: this.deployGuard.liveVersion(),
      ...logs,
    });
    this.tables.grantReadWrite(this.apiFunction.function);
    this.ramdiskLogs.grantApi(this.apiFunction.function);
    this.queues.grantSend(this.apiFunction.function);
    // The conductor casts to itself the work of a call that runs after its answer (functions/conductor/spawn.ts).
    this.queues.grantSend(this.conductor.function);
    this.conductor.live.grantInvoke(this.apiFunction.function);
    // Policies of their own, not the roles' default ones: each names a function whose creation
    // waits for its role's default policy, so a default-policy grant on it would be a cycle.
    // GET /ironless/v1/upgrade reads the upgrade's state (the conductor function's tags) and the live aliases.
    new Policy(this, 'ApiReadsUpgrade', {
      roles: [this.apiFunction.function.role!],
      statements: [
        new PolicyStatement({ actions: ['lambda:ListTags'], resources: [this.conductor.function.functionArn] }),
        new PolicyStatement({
          actions: ['lambda:GetAlias'],
          resources: [this.conductor.function.functionArn, this.apiFunction.function.functionArn],
        }),
      ],
    });
    // Periodic tasks fan out by page: the conductor hands the next page to its own live alias.
    new Policy(this, 'ConductorContinuesPeriodic', {
      roles: [this.conductor.function.role!],
      statements: [new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [this.conductor.live.functionArn] })],
    });

    // Online migrations scan whole tables: the longest timeout Lambda allows, and memory for CPU.
    this.dbsync = new IronlessFunction(this, 'Dbsync', {
      name: 'dbsync',
      timeout: Duration.minutes(15),
      memorySize: FUNCTION_MEMORY_MB.dbsync,
      environment: { ...this.tables.environment(), ...settingsEnvironment(settings) },
      liveVersion: this.deployGuard.liveVersion(),
      ...logs,
    });
    this.tables.grantReadWrite(this.dbsync.function);

    this.auth =
      settings.authStrategy === 'http_basic'
        ? new BasicAuth(this, 'BasicAuth', {
            secret: props.htpasswdSecret,
            cacheSeconds: settings.authorizerCacheSeconds,
            refreshSeconds: settings.htpasswdRefreshSeconds,
            reservedConcurrency: reservedConcurrency(exposure.authorizerReservedConcurrency, DEFAULT_AUTHORIZER_RESERVED_CONCURRENCY),
            ...logs,
          })
        : undefined;
    this.restApi = new IronlessApi(this, { handler: this.apiFunction.live, exposure, auth: this.auth, ...logs });
    this.api = this.restApi.api;

    const deadLetterQueues = new Map([...this.queues.deadLetterQueues].map(([group, q]) => [`Dlq-${groupLabel(group)}`, q]));
    deadLetterQueues.set('PeriodicFailures', this.periodicFailures);
    this.operations = new Operations(this, 'Operations', {
      conductor: this.conductor,
      api: this.apiFunction,
      authorizer: this.auth?.function,
      stage: this.api.deploymentStage,
      stateMachine: this.steps.stateMachine,
      deadLetterQueues,
      topic: props.alarmTopicArn ? Topic.fromTopicArn(this, 'AlarmTopicImport', props.alarmTopicArn) : undefined,
      key: this.logsKey.key,
      dashboard: props.dashboard,
    });
    this.webConsole = new WebConsole(this, 'WebConsole', { api: this.api, ...logs });
    this.upgradeOperator = new UpgradeOperator(this, 'UpgradeOperator', {
      conductor: this.conductor.function,
      api: this.apiFunction.function,
      dbsync: this.dbsync.function,
      authorizer: this.auth?.function.function,
      queues: this.queues,
      periodicFailures: this.periodicFailures,
      restApi: this.api,
      tables: this.tables.tables,
      rollout: this.deployGuard.rollout,
      policy: props.upgradeOperatorPolicy,
    });
    if (!props.alarmTopicArn) {
      new CfnOutput(this, 'AlarmTopic', {
        value: this.operations.topic.topicArn,
        description:
          'Alarms notify this SNS topic: aws sns subscribe --topic-arn <this> --protocol email --notification-endpoint you@example.com',
      });
    }
    if (this.auth) {
      new CfnOutput(this, 'HtpasswdSecret', {
        value: this.auth.secret.secretArn,
        description:
          'htpasswd entries (bcrypt) for http_basic: aws secretsmanager put-secret-value --secret-id <this> --secret-string file://htpasswd',
      });
    }
    new CfnOutput(this, 'ApiUrl', {
      value: this.api.url,
      description: 'OS_ENDPOINT for the openstack client; npm run smoke -- <this URL>',
    });
    new CfnOutput(this, 'ConsoleUrl', { value: `${this.api.url}ui/`, description: 'The web console (same authentication as the API)' });
    new CfnOutput(this, 'StepsStateMachineArn', { value: this.steps.stateMachine.stateMachineArn });
    new CfnOutput(this, 'RamdiskLogsBucket', {
      value: this.ramdiskLogs.bucket.bucketName,
      description: "The ramdisk's logs the conductor keeps (settings.deployLogsCollect)",
    });
    new CfnOutput(this, 'DbsyncFunction', {
      value: this.dbsync.live.functionArn,
      description: 'ironless dbsync --function <this ARN> <command>',
    });
    // `ironless dbsync --stack <name>` finds the tables through these outputs.
    for (const [name, table] of Object.entries(this.tables.tables)) {
      new CfnOutput(this, tableOutputKey(name), { value: table.tableName, description: `DynamoDB table "${name}"` });
    }
  }

  /** s3:// images: the conductor may read objects of exactly the allowed buckets (it presigns their URLs). */
  private grantImageBuckets(buckets: readonly string[]): void {
    if (buckets.length === 0) return;
    this.conductor.function.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3:GetObject'],
        resources: buckets.map((bucket) => this.formatArn({ service: 's3', region: '', account: '', resource: bucket, resourceName: '*' })),
      }),
    );
  }
}
