/**
 * The local stack's fault-injecting layer, in one place: DynamoDB throttling, errors and latency
 * (the proxy in front of DynamoDB Local), Lambda crashes and timeouts (the Lambda host), Step
 * Functions API errors (the local AWS endpoint). Slow or failing BMCs are the fleet's own faults
 * (`local/fleet`). Tests use it through `stack.faults`; `npm start --faults FILE` applies a
 * `FaultSpec` (JSON) for operators who want to see the stack ride them out.
 */
import { readFileSync } from 'node:fs';
import type { AwsEndpoint, StepFunctionsFault } from './aws-endpoint';
import type { DynamoDbFault, DynamoDbProxy } from './dynamodb-proxy';
import type { Fault, LambdaHost } from './lambda-host';

/** A Lambda fault as JSON: `rate` (of the function's invocations) instead of a `match` function. */
export interface LambdaFaultSpec {
  readonly function: string;
  /** Only invocations this version executes (e.g. "2"); default any. */
  readonly version?: string;
  readonly action: Fault['action'];
  readonly afterMs?: number;
  /** Share of the function's invocations it hits, in (0, 1]; default 1. */
  readonly rate?: number;
  /** Invocations it hits; default 1. */
  readonly times?: number;
}

/** What `npm start --faults FILE` reads. */
export interface FaultSpec {
  readonly dynamodb?: readonly DynamoDbFault[];
  readonly lambda?: readonly LambdaFaultSpec[];
  readonly stepFunctions?: readonly StepFunctionsFault[];
}

export class LocalFaults {
  constructor(
    private readonly proxy: DynamoDbProxy | undefined,
    private readonly lambdaHost: LambdaHost,
    private readonly aws: AwsEndpoint,
  ) {}

  /** Make DynamoDB throttle, fail or slow down (the stack must have been started with `faults`). */
  dynamodb(fault: DynamoDbFault): void {
    if (this.proxy === undefined) throw new Error('DynamoDB faults need a stack started with the `faults` option');
    this.proxy.addFault(fault);
  }

  /** Crash or time out invocations of a function. */
  lambda(fault: Fault): void {
    this.lambdaHost.injectFault(fault);
  }

  /** Make Step Functions actions (SendTask* by default) throttle or fail. */
  stepFunctions(fault: StepFunctionsFault): void {
    this.aws.addStepFunctionsFault(fault);
  }

  /** Apply a spec (`npm start --faults`). */
  apply(spec: FaultSpec): void {
    for (const fault of spec.dynamodb ?? []) this.dynamodb(fault);
    for (const { rate, ...fault } of spec.lambda ?? []) {
      if (rate !== undefined && !(rate > 0 && rate <= 1)) throw new Error(`A fault's rate must be in (0, 1]: ${rate}`);
      this.lambda({ ...fault, ...(rate === undefined ? {} : { match: () => Math.random() < rate }) });
    }
    for (const fault of spec.stepFunctions ?? []) this.stepFunctions(fault);
  }

  /** Remove every fault not yet spent. */
  clear(): void {
    this.proxy?.clearFaults();
    this.lambdaHost.clearFaults();
    this.aws.clearFaults();
  }

  /** Faults injected so far: DynamoDB requests by action, Lambda invocations by action, Step Functions calls by action. */
  injected(): { dynamodb: Record<string, number>; lambda: Record<string, number>; stepFunctions: Record<string, number> } {
    return {
      dynamodb: Object.fromEntries(this.proxy?.injected ?? []),
      lambda: Object.fromEntries(this.lambdaHost.injectedFaults),
      stepFunctions: Object.fromEntries(this.aws.injected),
    };
  }
}

/** A fault spec from a JSON file, with what is wrong in it named. */
export function readFaultSpec(file: string): FaultSpec {
  const spec = JSON.parse(readFileSync(file, 'utf8')) as FaultSpec;
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec))
    throw new Error(`${file}: a fault spec is a JSON object with "dynamodb", "lambda" and "stepFunctions" lists`);
  for (const key of Object.keys(spec)) {
    if (!['dynamodb', 'lambda', 'stepFunctions'].includes(key))
      throw new Error(`${file}: unknown key "${key}" (dynamodb, lambda, stepFunctions)`);
    if (!Array.isArray(spec[key as keyof FaultSpec])) throw new Error(`${file}: "${key}" must be a list of faults`);
  }
  return spec;
}
