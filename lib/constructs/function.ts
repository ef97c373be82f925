/**
 * A Lambda function of Ironless, as every one is deployed: the bundle from `lib/bundling.ts`
 * (built locally, the same bytes the local stack runs), Node 22 on arm64, a log group with a
 * retention, and an alias `live` that every caller uses — so a release is a published version
 * and an upgrade is a shift of that alias. Which version `live` names is the function's current
 * version (it follows every deploy) unless `liveVersion` says otherwise (`deploy-guard.ts`).
 */
import { type Duration, RemovalPolicy, type Size } from 'aws-cdk-lib';
import type { ISecurityGroup, IVpc, SubnetSelection } from 'aws-cdk-lib/aws-ec2';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Alias, Architecture, Code, type IVersion, Function as LambdaFunction, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { AssetHashType, DockerImage } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { checkEnvironmentSize } from '../function-environment';
import { FUNCTIONS, FUNCTION_NODE_OPTIONS, type FunctionName, HANDLER, PROJECT_ROOT, bundleFunctionSync } from '../bundling';

/** Chooses the version a function's `live` alias names (created in `scope`). */
export type LiveVersionChooser = (scope: Construct, fn: LambdaFunction) => IVersion;

export interface IronlessFunctionProps {
  readonly name: FunctionName;
  readonly timeout: Duration;
  readonly environment: Record<string, string>;
  /** @default 512 */
  readonly memorySize?: number;
  /** @default RetentionDays.ONE_YEAR */
  readonly logRetention?: RetentionDays;
  /** Encrypt the function's log group with this key. @default CloudWatch Logs' own encryption */
  readonly logsKey?: IKey;
  /** Its /tmp. @default 512 MiB (Lambda's) */
  readonly ephemeralStorageSize?: Size;
  /** Concurrency reserved for (and capping) this function. @default unreserved */
  readonly reservedConcurrentExecutions?: number;
  /** Place the function in this VPC (to reach BMCs and agents on private networks). @default no VPC */
  readonly vpc?: IVpc;
  readonly vpcSubnets?: SubnetSelection;
  readonly securityGroups?: ISecurityGroup[];
  /** The version `live` names. @default the function's current version: `live` follows every deploy */
  readonly liveVersion?: LiveVersionChooser;
  /** Files put in the code beside the bundle (path relative to its root → content). @default none */
  readonly files?: Readonly<Record<string, Buffer>>;
}

/** A digest of extra files: CDK's bundling cache (per app) would otherwise give two stacks of one app that differ only in them the same code. */
function filesDigest(files: Readonly<Record<string, Buffer>>): string {
  const hash = createHash('sha256');
  for (const [path, bytes] of Object.entries(files).sort(([a], [b]) => a.localeCompare(b))) hash.update(path).update('\0').update(bytes);
  return hash.digest('hex');
}

export class IronlessFunction extends Construct {
  readonly function: LambdaFunction;
  readonly live: Alias;

  constructor(scope: Construct, id: string, props: IronlessFunctionProps) {
    super(scope, id);
    const files = Object.entries(props.files ?? {});
    const logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention ?? RetentionDays.ONE_YEAR,
      encryptionKey: props.logsKey,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.function = new LambdaFunction(this, 'Function', {
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      handler: HANDLER,
      code: Code.fromAsset(join(PROJECT_ROOT, 'functions'), {
        assetHashType: AssetHashType.OUTPUT,
        bundling: {
          // CDK caches bundles by these options within a process, blind to the closure below: the
          // function's name keeps each function's bundle apart (without it, all got the first one).
          environment: { IRONLESS_FUNCTION: props.name, ...(files.length > 0 ? { IRONLESS_FILES: filesDigest(props.files ?? {}) } : {}) },
          // Never used: bundling is local (esbuild from node_modules), the image is only required by the API.
          image: DockerImage.fromRegistry('public.ecr.aws/sam/build-nodejs22.x'),
          local: {
            tryBundle(outputDir: string): boolean {
              bundleFunctionSync(props.name, outputDir);
              for (const [path, bytes] of files) {
                mkdirSync(dirname(join(outputDir, path)), { recursive: true });
                writeFileSync(join(outputDir, path), bytes);
              }
              return true;
            },
          },
        },
      }),
      memorySize: props.memorySize ?? 512,
      ephemeralStorageSize: props.ephemeralStorageSize,
      timeout: props.timeout,
      reservedConcurrentExecutions: props.reservedConcurrentExecutions,
      environment: checkedEnvironment(props.name, { ...props.environment, NODE_OPTIONS: FUNCTION_NODE_OPTIONS }),
      logGroup,
      tracing: Tracing.ACTIVE,
      description: `Ironless ${props.name} (${FUNCTIONS[props.name]})`,
      ...(props.vpc ? { vpc: props.vpc, vpcSubnets: props.vpcSubnets, securityGroups: props.securityGroups } : {}),
    });
    const version = props.liveVersion ? props.liveVersion(this, this.function) : this.function.currentVersion;
    this.live = new Alias(this, 'Live', { aliasName: 'live', version });
  }
}

/** The variables as given, once they are known to fit in Lambda's 4 KB. */
function checkedEnvironment(name: string, env: Record<string, string>): Record<string, string> {
  checkEnvironmentSize(name, env);
  return env;
}
