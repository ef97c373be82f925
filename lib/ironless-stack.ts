/**
 * The Ironless stack: API Gateway (REST API) → `api` alias `live` → SQS per conductor group →
 * `conductor` alias `live` → the steps state machine → DynamoDB. Scheduled periodic tasks invoke
 * the conductor too. Settings are shared with the local stack (`lib/settings.ts`).
 */
import { CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { AccessLogFormat, EndpointType, LambdaRestApi, LogGroupLogDestination, MethodLoggingLevel } from 'aws-cdk-lib/aws-apigateway';
import { SecurityGroup, Subnet, Vpc } from 'aws-cdk-lib/aws-ec2';
import { Rule, RuleTargetInput, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction as LambdaTarget } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { AwsCustomResource, AwsCustomResourcePolicy, PhysicalResourceId } from 'aws-cdk-lib/custom-resources';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { ENV } from '../functions/common/config';
import { PERIODIC_TASKS } from '../functions/conductor/schedules';
import { queueSettings } from '../functions/rpc/queues';
import { BasicAuth } from './constructs/basic-auth';
import { ConductorQueues } from './constructs/conductor-queues';
import { IronlessFunction } from './constructs/function';
import { StepsMachine } from './constructs/steps-machine';
import { Tables } from './constructs/tables';
import { WebConsole } from './constructs/web-console';
import { tableOutputKey } from '../functions/db/schema';
import { DEFAULT_SETTINGS, type IronlessSettings, settingsEnvironment, validateSettings } from './settings';

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
  /** API endpoint type; PRIVATE keeps the API inside VPCs (with an interface endpoint). @default REGIONAL */
  readonly endpointType?: EndpointType;
  /**
   * With `settings.authStrategy` `http_basic`: the secret holding the htpasswd entries.
   * @default a new secret, to be given its value after deploying
   */
  readonly htpasswdSecret?: ISecret;
}

export class IronlessStack extends Stack {
  readonly api: LambdaRestApi;
  readonly apiFunction: IronlessFunction;
  readonly conductor: IronlessFunction;
  /** `ironless dbsync` inside AWS: version checks and online data migrations next to the tables. */
  readonly dbsync: IronlessFunction;
  readonly steps: StepsMachine;
  readonly queues: ConductorQueues;
  readonly tables: Tables;
  /** The authorizer and its secret, with `http_basic`. */
  readonly auth: BasicAuth | undefined;
  /** The web console, at `<ApiUrl>ui/`. */
  readonly webConsole: WebConsole;

  constructor(scope: Construct, id: string, props: IronlessStackProps = {}) {
    super(scope, id, props);
    const settings: IronlessSettings = { ...DEFAULT_SETTINGS, ...(props.settings ?? {}) };
    validateSettings(settings);

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
      [ENV.conductorQueues]: this.queues.environmentValue(),
    };

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
      environment: { ...common, [ENV.stepsStateMachineArn]: stepsArn },
      ...(vpc && network
        ? {
            vpc,
            vpcSubnets: { subnets: network.subnetIds.map((subnetId, i) => Subnet.fromSubnetId(this, `ConductorSubnet${i}`, subnetId)) },
            securityGroups: network.securityGroupIds?.map((sg, i) => SecurityGroup.fromSecurityGroupId(this, `ConductorSg${i}`, sg)),
          }
        : {}),
    });
    this.tables.grantReadWrite(this.conductor.function);
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
    });

    const batchSize = queueSettings(settings.conductorTimeoutSeconds).batchSize;
    for (const queue of this.queues.queues.values()) {
      this.conductor.live.addEventSource(new SqsEventSource(queue, { batchSize, reportBatchItemFailures: true }));
    }
    for (const [task, { everySeconds }] of Object.entries(PERIODIC_TASKS)) {
      new Rule(this, `Periodic-${task}`, {
        description: `Ironless conductor periodic task ${task}`,
        schedule: Schedule.rate(Duration.seconds(everySeconds)),
        targets: [new LambdaTarget(this.conductor.live, { event: RuleTargetInput.fromObject({ entry: 'periodic', task }) })],
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
      policy: AwsCustomResourcePolicy.fromStatements([
        new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [this.conductor.live.functionArn] }),
      ]),
    });

    this.apiFunction = new IronlessFunction(this, 'Api', {
      name: 'api',
      timeout: Duration.seconds(settings.apiTimeoutSeconds),
      memorySize: 1024,
      environment: { ...common, [ENV.conductorFunction]: this.conductor.live.functionArn },
    });
    this.tables.grantReadWrite(this.apiFunction.function);
    this.queues.grantSend(this.apiFunction.function);
    this.conductor.live.grantInvoke(this.apiFunction.function);

    // Online migrations scan whole tables: the longest timeout Lambda allows, and memory for CPU.
    this.dbsync = new IronlessFunction(this, 'Dbsync', {
      name: 'dbsync',
      timeout: Duration.minutes(15),
      memorySize: 1024,
      environment: { ...this.tables.environment(), ...settingsEnvironment(settings) },
    });
    this.tables.grantReadWrite(this.dbsync.function);

    const accessLogs = new LogGroup(this, 'ApiAccessLogs', { retention: RetentionDays.ONE_MONTH });
    this.api = new LambdaRestApi(this, 'RestApi', {
      handler: this.apiFunction.live,
      proxy: false,
      description: 'OpenStack Ironic v1 API (Ironless)',
      endpointTypes: [props.endpointType ?? EndpointType.REGIONAL],
      cloudWatchRole: true,
      deployOptions: {
        stageName: 'ironless',
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: AccessLogFormat.jsonWithStandardFields(),
        loggingLevel: MethodLoggingLevel.ERROR,
        tracingEnabled: true,
      },
    });
    this.auth = settings.authStrategy === 'http_basic' ? new BasicAuth(this, 'BasicAuth', { secret: props.htpasswdSecret }) : undefined;
    this.addRoutes(this.api, this.auth);
    this.webConsole = new WebConsole(this, 'WebConsole', { api: this.api });
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
    new CfnOutput(this, 'DbsyncFunction', {
      value: this.dbsync.live.functionArn,
      description: 'ironless dbsync --function <this ARN> <command>',
    });
    // `ironless dbsync --stack <name>` finds the tables through these outputs.
    for (const [name, table] of Object.entries(this.tables.tables)) {
      new CfnOutput(this, tableOutputKey(name), { value: table.tableName, description: `DynamoDB table "${name}"` });
    }
  }

  /**
   * Every path goes to the API function. With http_basic, all but Ironic's public routes (`/`,
   * `/v1`, the agent's lookup and heartbeat, guarded by agent_token) pass the authorizer first.
   */
  private addRoutes(api: LambdaRestApi, auth: BasicAuth | undefined): void {
    const secured = auth ? { authorizer: auth.authorizer } : {};
    api.root.addMethod('ANY');
    api.root.addResource('{proxy+}').addMethod('ANY', undefined, secured);
    const v1 = api.root.addResource('v1');
    v1.addMethod('ANY');
    v1.addResource('{proxy+}').addMethod('ANY', undefined, secured);
    v1.addResource('lookup').addMethod('ANY');
    v1.addResource('heartbeat').addResource('{node}').addMethod('ANY');
    auth?.addGatewayResponses(api);
  }
}
