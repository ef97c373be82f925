/**
 * The whole of Ironless on one machine (`npm start`): the same bundles, tables, queues and state
 * machine definition the CDK stack deploys, hosted by real local stand-ins for each AWS service.
 * Only endpoints differ, given to the functions through the AWS SDK's AWS_ENDPOINT_URL_* variables.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { build, stop as stopEsbuild } from 'esbuild';
import type { FauxqsServer } from 'fauxqs';
import { BUNDLE_FILE, FUNCTION_NODE_OPTIONS, type FunctionName, HANDLER, PROJECT_ROOT, bundleAll } from '../lib/bundling';
import { conductorCode } from '../lib/conductor-code';
import { DEFAULT_SETTINGS, type IronlessSettings, LOCAL_STACK_DEFAULTS, settingsEnvironment, validateSettings } from '../lib/settings';
import { ramdiskLogsEnvironment } from '../lib/ramdisk-logs-settings';
import { ENV } from '../functions/common/config';
import { parseHtpasswd } from '../functions/authorizer/basic';
import { TABLES, type TableDef, type TableName } from '../functions/db/schema';
import { queueSettings } from '../functions/rpc/queues';
import { renderStepsDefinition } from '../statemachines/definitions';
import { AwsEndpoint } from './aws-endpoint';
import { type LocalFleetOptions, startLocalFleet } from './fleet/local';
import type { Fleet } from './fleet/fleet';
import { createTables, type DynamoDbLocal, startDynamoDbLocal } from './dynamodb';
import { UI_PATH } from '../functions/ui/serve';
import { Gateway, type GatewayRoute } from './gateway';
import { LocalAuthorizer } from './authorizer';
import { LambdaHost } from './lambda-host';
import { LocalSchedules } from './schedules';
import { DynamoDbProxy } from './dynamodb-proxy';
import { type FaultSpec, LocalFaults } from './faults';
import { API_NAME, API_STAGE, type LocalStackInfo, PREFIX, STACK_FILE } from './stack-info';
import { type BuildManifest, RELEASE_TAG, UNRELEASED, readBuildManifest } from './build-manifest';
import { LocalStepFunctions } from './stepfunctions';
import { type ConductorQueue, SqsEventSource, createConductorQueues, startSqs } from './sqs';

export interface LocalStackOptions {
  /** Port of the API (Ironic's 6385); 0 picks a free one. */
  readonly port?: number;
  /** Keep data under this folder (default .ironless); ignored with inMemory. */
  readonly dataDir?: string;
  readonly inMemory?: boolean;
  /**
   * Use bundles already built here (`<dir>/<function>/index.mjs`, `<dir>/runtime.mjs`) instead of
   * building. With a `manifest.json` (build-manifest.ts), the stack creates the manifest's tables
   * and tags its functions with the manifest's release.
   */
  readonly buildDir?: string;
  readonly settings?: Partial<IronlessSettings>;
  /** Run the periodic tasks on their schedules (default true). */
  readonly schedules?: boolean;
  /** Extra environment for every function (tests). */
  readonly functionEnv?: Readonly<Record<string, string>>;
  /** Count DynamoDB requests by operation (`stack.dynamoRequests`), for benchmarks. */
  readonly countDynamoDbRequests?: boolean;
  /**
   * The fault-injecting layer (`stack.faults`): DynamoDB behind a proxy that can throttle, fail
   * and slow down requests, with these faults to begin with (true: none yet). Lambda and Step
   * Functions faults need no option.
   */
  readonly faults?: boolean | FaultSpec;
  /** Virtual machines with Redfish BMCs, enrolled as redfish nodes once the API is up (default: none). */
  readonly fleet?: LocalFleetOptions;
  /** Where progress lines go (default: nowhere). */
  readonly log?: (line: string) => void;
  /** With `settings.authStrategy` `http_basic`: the htpasswd file (bcrypt entries), served as the authorizer's secret. */
  readonly htpasswdFile?: string;
}

/** The ARN the local htpasswd secret is served under. */
const HTPASSWD_SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:ironless-htpasswd';

/**
 * Execution environments the API function runs at once: two per core. Each environment is a V8
 * isolate of its own, compiled, cached and collected apart from the others, so on one machine
 * more of them than the cores can keep busy only add CPU to every request: on 2 cores, GET node
 * cost 1.2 ms of the functions' CPU with 8 environments and 0.6 ms with 4. One per core costs less
 * CPU per request still (1.23–1.38 ms against 1.65–1.8 ms with 4 on a loaded machine, 2026-11-27)
 * but halves what the API answers while requests wait on DynamoDB Local: the upgrade test's load
 * then got 409s and its deploys 351 cycles in 4 minutes against 1,071 with 4. Requests beyond
 * them wait their turn, as they would on a function with reserved concurrency. The conductor keeps
 * 8: its invocations wait on BMCs and agents, not on the CPU.
 */
export const API_ENVIRONMENTS = Math.max(2, 2 * availableParallelism());
const CONDUCTOR_ENVIRONMENTS = 8;

/** As the CDK stack's dbsync function: online migrations may run long. */
const DBSYNC_TIMEOUT_SECONDS = 900;
const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

/** Build the function bundles and the worker runtime into `dir`. */
export async function buildLocal(dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  await Promise.all([
    bundleAll(dir),
    build({
      entryPoints: [join(PROJECT_ROOT, 'local/lambda-runtime.ts')],
      outfile: join(dir, 'runtime.mjs'),
      bundle: true,
      platform: 'node',
      target: 'node22',
      format: 'esm',
      logLevel: 'warning',
    }),
  ]);
  // esbuild keeps a service process for later builds; the stack builds once, so end it now.
  await stopEsbuild();
}

export class LocalStack {
  url = '';
  readonly settings: IronlessSettings;
  lambda!: LambdaHost;
  sfn!: LocalStepFunctions;
  tables!: Record<TableName, string>;
  /** The build's manifest, when the stack runs a release built with one. */
  manifest: BuildManifest | undefined;
  queues!: ConductorQueue[];
  /** Where the services listen; S3 (the boot ISO bucket) is fauxqs, as SQS is. */
  endpoints!: { dynamodb: string; sqs: string; s3: string; aws: string };
  /** The bucket the conductor puts the agent ISOs it builds in (the stack's BootIsos bucket on AWS). */
  readonly bootIsoBucket = `${PREFIX}-boot-isos`;
  /** The bucket the conductor keeps the ramdisk's logs in (the stack's RamdiskLogs bucket on AWS; no expiry here). */
  readonly ramdiskLogsBucket = `${PREFIX}-ramdisk-logs`;
  stateMachineArn = '';
  /** The proxy in front of DynamoDB Local (requests by operation, faults), with `countDynamoDbRequests` or `faults`. */
  dynamoRequests: DynamoDbProxy | undefined;
  /** Injecting faults into DynamoDB (with the `faults` option), Lambda and Step Functions. */
  faults!: LocalFaults;
  /** The virtual machines, when the `fleet` option asked for some. */
  fleet: Fleet | undefined;
  /** Where each function's log goes (`<logDir>/<function>.log`), for tests that read what ran. */
  logDir = '';

  private dynamo: DynamoDbLocal | undefined;

  /** The DynamoDB Local (Java) process, for benchmarks that read its CPU time. */
  get dynamoDbPid(): number | undefined {
    return this.dynamo?.process.pid;
  }

  /** DynamoDB Local itself, not the counting proxy: for benchmarks that read without being counted. */
  get dynamoDbEndpoint(): string | undefined {
    return this.dynamo?.endpoint;
  }

  /** Messages sent to the conductor queues so far (each counted once, at its first receipt). */
  get sqsMessages(): number {
    return this.sources.reduce((n, source) => n + source.messagesReceived, 0);
  }

  /** Each conductor group's queue mapping: the most invocations it ran at once so far. */
  get peakConcurrencyByGroup(): Record<string, number> {
    return Object.fromEntries(this.sources.map((source, i) => [this.queues[i]?.group ?? '', source.peakConcurrency]));
  }

  /** Each conductor group's queue mapping: the most invocations it may run at once. */
  get maxConcurrencyByGroup(): Record<string, number> {
    return Object.fromEntries(this.sources.map((source, i) => [this.queues[i]?.group ?? '', source.maxConcurrency]));
  }

  private sqsServer: FauxqsServer | undefined;
  private awsEndpoint: AwsEndpoint | undefined;
  private gateway: Gateway | undefined;
  private readonly sources: SqsEventSource[] = [];
  private schedules: LocalSchedules | undefined;
  private scratch: string | undefined;
  private stackFile: string | undefined;
  private readonly log: (line: string) => void;

  constructor(private readonly options: LocalStackOptions = {}) {
    // The local gateway listens on loopback only, so it serves noauth unless asked for http_basic
    // (the CDK stack's default: a deployed API is reachable from the network).
    this.settings = { ...DEFAULT_SETTINGS, ...LOCAL_STACK_DEFAULTS, authStrategy: 'noauth', ...(options.settings ?? {}) };
    validateSettings(this.settings);
    this.log = options.log ?? (() => {});
    if (this.settings.authStrategy === 'http_basic') {
      if (!options.htpasswdFile) throw new Error('http_basic needs an htpasswd file (--htpasswd FILE)');
      // As Ironic refuses to start with an unreadable file or a non-bcrypt entry.
      parseHtpasswd(readFileSync(options.htpasswdFile, 'utf8'));
    }
  }

  async start(): Promise<this> {
    const dataDir = this.options.inMemory ? undefined : resolve(this.options.dataDir ?? '.ironless');
    const workDir = dataDir ?? (this.scratch = mkdtempSync(join(tmpdir(), 'ironless-')));
    const buildDir = this.options.buildDir ?? join(workDir, 'build');
    try {
      const [dynamo, sqsServer] = await Promise.all([
        startDynamoDbLocal(dataDir ? { dataDir: join(dataDir, 'dynamodb') } : {}),
        startSqs(dataDir ? { dataDir: join(dataDir, 'sqs') } : {}),
        this.options.buildDir ? Promise.resolve() : buildLocal(buildDir),
      ]);
      this.dynamo = dynamo;
      this.sqsServer = sqsServer;

      const ddb = new DynamoDBClient({ endpoint: dynamo.endpoint, region: 'us-east-1', credentials: LOCAL_CREDENTIALS });
      this.manifest = this.options.buildDir ? readBuildManifest(this.options.buildDir) : undefined;
      this.tables = await createTables(ddb, PREFIX, undefined, this.tableDefs());
      ddb.destroy();
      this.queues = createConductorQueues(
        sqsServer,
        PREFIX,
        this.settings.conductorGroups,
        queueSettings(this.settings.conductorTimeoutSeconds),
      );
      sqsServer.setup({ buckets: [this.bootIsoBucket, this.ramdiskLogsBucket] });

      this.logDir = join(workDir, 'logs');
      this.lambda = new LambdaHost({
        runtimeFile: join(buildDir, 'runtime.mjs'),
        codeDir: join(workDir, 'code'),
        logDir: this.logDir,
      });
      this.sfn = new LocalStepFunctions(this.lambda, { onEvent: this.log });
      this.awsEndpoint = new AwsEndpoint(this.lambda, this.sfn);
      const aws = await this.awsEndpoint.start();
      if (this.options.countDynamoDbRequests || this.options.faults) this.dynamoRequests = new DynamoDbProxy(dynamo.endpoint);
      const dynamodb = this.dynamoRequests ? await this.dynamoRequests.start() : dynamo.endpoint;
      this.endpoints = { dynamodb, sqs: sqsServer.address, s3: sqsServer.address, aws };
      this.faults = new LocalFaults(this.dynamoRequests, this.lambda, this.awsEndpoint);

      const conductorArn = LambdaHost.arn('conductor', 'live');
      this.stateMachineArn = this.sfn.createStateMachine(
        `${PREFIX}-steps`,
        renderStepsDefinition(
          {
            HeartbeatSeconds: this.settings.heartbeatTimeoutSeconds,
            CallbackTimeoutSeconds: this.settings.callbackTimeoutSeconds,
            StepTimeoutSeconds: this.settings.stepTimeoutSeconds,
          },
          { ConductorFunctionArn: conductorArn },
        ),
      );
      const env = this.functionEnvironment(conductorArn);
      // Ironic's [agent]api_ca_file and isolinux in the conductor's code, as the CDK stack puts them there.
      const code = conductorCode(this.settings);
      const functions: [FunctionName, number, number][] = [
        ['api', this.settings.apiTimeoutSeconds, API_ENVIRONMENTS],
        ['conductor', this.settings.conductorTimeoutSeconds, CONDUCTOR_ENVIRONMENTS],
        ['dbsync', DBSYNC_TIMEOUT_SECONDS, CONDUCTOR_ENVIRONMENTS],
      ];
      for (const [name, timeoutSeconds, maxConcurrency] of functions) {
        this.lambda.createFunction({
          name,
          bundle: join(buildDir, name, BUNDLE_FILE),
          handler: HANDLER,
          ...(name === 'conductor' ? { env: { ...env, ...code.environment }, files: code.files } : { env }),
          timeoutSeconds,
          maxConcurrency,
          tags: this.releaseTags(),
        });
        this.lambda.setAlias(name, 'live', this.lambda.publishVersion(name));
      }

      const sqs = new SQSClient({ endpoint: sqsServer.address, region: 'us-east-1', credentials: LOCAL_CREDENTIALS });
      for (const queue of this.queues) {
        const source = new SqsEventSource(sqs, this.lambda, {
          queueUrl: queue.url,
          queueArn: queue.arn,
          functionRef: conductorArn,
          batchSize: queueSettings(this.settings.conductorTimeoutSeconds).batchSize,
          // A group's concurrency cap: each poller delivers one batch at a time.
          pollers: this.settings.conductorGroupConcurrency[queue.group] ?? 2,
        });
        source.start();
        this.sources.push(source);
      }
      this.schedules = new LocalSchedules(this.lambda, this.log);
      await this.schedules.start(this.settings, this.options.schedules !== false);
      const authorizer = this.startAuthorizer(buildDir, env);
      this.gateway = new Gateway(this.lambda, LambdaHost.arn('api', 'live'), API_STAGE, authorizer, this.startUi(buildDir), {
        store: this.lambda.metrics,
        apiName: API_NAME,
      });
      this.url = await this.gateway.start(this.options.port ?? 6385);
      if (this.options.fleet && this.options.fleet.count > 0) this.fleet = await startLocalFleet(this.options.fleet, this.url, this.log);
      if (dataDir) this.writeStackFile(dataDir, dynamo.endpoint);
      // Faults asked for at start apply once the stack is up (its own start-up is not their subject).
      if (typeof this.options.faults === 'object') this.faults.apply(this.options.faults);
      return this;
    } catch (err) {
      await this.stop();
      throw err;
    }
  }

  /**
   * The web console's function (its files, at `/ui/`), as the CDK stack's WebConsole serves it;
   * none when the bundles are of a release that had no console (2026.3).
   */
  private startUi(buildDir: string): GatewayRoute[] {
    if (!existsSync(join(buildDir, 'ui', BUNDLE_FILE))) return [];
    this.lambda.createFunction({
      name: 'ui',
      bundle: join(buildDir, 'ui', BUNDLE_FILE),
      handler: HANDLER,
      env: { NODE_OPTIONS: FUNCTION_NODE_OPTIONS },
      timeoutSeconds: 10,
      maxConcurrency: 2,
      tags: this.releaseTags(),
    });
    this.lambda.setAlias('ui', 'live', this.lambda.publishVersion('ui'));
    return [{ prefix: UI_PATH, functionRef: LambdaHost.arn('ui', 'live') }];
  }

  /** With http_basic: the authorizer function, its secret served from the htpasswd file. */
  private startAuthorizer(buildDir: string, env: Record<string, string>): LocalAuthorizer | undefined {
    const file = this.options.htpasswdFile;
    if (this.settings.authStrategy !== 'http_basic' || file === undefined) return undefined;
    this.awsEndpoint?.putSecret(HTPASSWD_SECRET_ARN, () => readFileSync(file, 'utf8'));
    this.lambda.createFunction({
      name: 'authorizer',
      bundle: join(buildDir, 'authorizer', BUNDLE_FILE),
      handler: HANDLER,
      env: {
        ...env,
        HTPASSWD_SECRET_ID: HTPASSWD_SECRET_ARN,
        [ENV.htpasswdRefreshSeconds]: String(this.settings.htpasswdRefreshSeconds),
        AWS_ENDPOINT_URL_SECRETS_MANAGER: this.endpoints.aws,
      },
      timeoutSeconds: 10,
      maxConcurrency: 4,
      tags: this.releaseTags(),
    });
    this.lambda.setAlias('authorizer', 'live', this.lambda.publishVersion('authorizer'));
    return new LocalAuthorizer(this.lambda, LambdaHost.arn('authorizer', 'live'), this.settings.authorizerCacheSeconds);
  }

  /** Beat for every conductor version now, as the schedule would (local/schedules.ts). */
  async conductorHeartbeat(): Promise<void> {
    await this.schedules?.conductorHeartbeat();
  }

  /** Disable or enable the conductor's queue mappings (messages wait in the queues meanwhile). */
  setEventSourcesEnabled(enabled: boolean): void {
    for (const source of this.sources) source.setEnabled(enabled);
  }

  /** The environment every function version is published with. */
  functionEnvironment(conductorArn: string): Record<string, string> {
    const env: Record<string, string> = {
      ...settingsEnvironment(this.settings),
      ...ramdiskLogsEnvironment(this.settings),
      [ENV.conductorFunction]: conductorArn,
      [ENV.stepsStateMachineArn]: this.stateMachineArn,
      [ENV.conductorQueues]: JSON.stringify(Object.fromEntries(this.queues.map((q) => [q.group, q.url]))),
      AWS_ENDPOINT_URL_DYNAMODB: this.endpoints.dynamodb,
      AWS_ENDPOINT_URL_SQS: this.endpoints.sqs,
      AWS_ENDPOINT_URL_S3: this.endpoints.s3,
      [ENV.bootIsoBucket]: this.bootIsoBucket,
      [ENV.logsBucket]: this.ramdiskLogsBucket,
      AWS_ENDPOINT_URL_SFN: this.endpoints.aws,
      AWS_ENDPOINT_URL_LAMBDA: this.endpoints.aws,
      AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
      POWERTOOLS_DEV: 'false',
      NODE_OPTIONS: FUNCTION_NODE_OPTIONS,
      ...(this.options.functionEnv ?? {}),
    };
    for (const [name, def] of Object.entries(this.tableDefs())) env[def.envVar] = this.tables[name as TableName];
    return env;
  }

  /** The tables this stack's release has: its manifest's, or the schema's when built from sources. */
  private tableDefs(): Readonly<Record<string, TableDef>> {
    return this.manifest?.tables ?? TABLES;
  }

  /** Every function is tagged with the release it runs, as the CDK stack tags them. */
  private releaseTags(): Record<string, string> {
    return { [RELEASE_TAG]: this.manifest?.release ?? UNRELEASED };
  }

  /**
   * `<dataDir>/stack.json`: where this stack's services listen and its table names, for tools
   * that work on a running stack (`ironless dbsync`). Removed on stop; a file left by a stack
   * that died names a process that no longer runs.
   */
  private writeStackFile(dataDir: string, dynamodb: string): void {
    this.stackFile = join(dataDir, STACK_FILE);
    const info: LocalStackInfo = {
      pid: process.pid,
      startedAt: new Date().toISOString(),
      url: this.url,
      region: 'us-east-1',
      endpoints: { ...this.endpoints, dynamodb, cloudwatch: this.endpoints.aws },
      tablePrefix: PREFIX,
      tables: this.tables,
      functions: { dbsync: LambdaHost.arn('dbsync', 'live') },
      lambda: {
        api: 'api',
        conductor: 'conductor',
        dbsync: 'dbsync',
        ...(this.lambda.functionNames().includes('authorizer') ? { authorizer: 'authorizer' } : {}),
        ...(this.lambda.functionNames().includes('ui') ? { ui: 'ui' } : {}),
      },
      queues: this.queues.map(({ group, url, dlqUrl }) => ({ group, url, dlqUrl })),
      api: { name: API_NAME, stage: API_STAGE },
    };
    writeFileSync(this.stackFile, `${JSON.stringify(info, null, 2)}\n`);
  }

  async stop(): Promise<void> {
    await this.fleet?.stop();
    if (this.stackFile) rmSync(this.stackFile, { force: true });
    this.schedules?.stop();
    await this.gateway?.stop();
    await Promise.all(this.sources.splice(0).map((s) => s.stop()));
    this.sfn?.stop();
    await this.lambda?.stop();
    await this.awsEndpoint?.stop();
    await this.dynamoRequests?.stop();
    await this.sqsServer?.stop();
    await this.dynamo?.stop();
    if (this.scratch) rmSync(this.scratch, { recursive: true, force: true });
  }
}
