/**
 * The AWS APIs functions call on a local stack that no emulator package provides: Lambda's Invoke
 * (the RPC "call"), Step Functions' execution and task-token actions, and Secrets Manager's
 * GetSecretValue (the htpasswd entries of http_basic); for tools such as `ironless upgrade`,
 * Lambda's management API (lambda-api.ts) and CloudWatch's GetMetricData (cloudwatch-api.ts).
 * One HTTP server speaks the wire protocols the AWS SDK uses, so code runs unchanged with only
 * AWS_ENDPOINT_URL_LAMBDA, AWS_ENDPOINT_URL_SFN, AWS_ENDPOINT_URL_SECRETS_MANAGER and
 * AWS_ENDPOINT_URL_CLOUDWATCH pointing here.
 *
 * Step Functions actions can be made to fail (`addStepFunctionsFault`): throttled or a 500,
 * without acting, as the service does when it is busy (tests, `npm start --faults`).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type LambdaHost, LambdaServiceError } from './lambda-host';
import { lambdaApi } from './lambda-api';
import { CLOUDWATCH_TARGET, CloudWatchError, cloudWatchApi } from './cloudwatch-api';
import { type LocalStepFunctions, SfnError } from './stepfunctions';

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(body);
}

function awsError(res: ServerResponse, status: number, type: string, message: string): void {
  send(res, status, JSON.stringify({ __type: type, message }), { 'x-amzn-ErrorType': type });
}

/** A fault of the Step Functions API: matching actions answer an error instead of acting. */
export interface StepFunctionsFault {
  /** `throttling`: 400 ThrottlingException; `server-error`: 500 InternalFailure. Neither acts. */
  readonly error: 'throttling' | 'server-error';
  /** Actions it applies to; default SendTaskSuccess, SendTaskFailure and SendTaskHeartbeat. */
  readonly actions?: readonly string[];
  /** Share of the matching calls it hits, in (0, 1]; default 1. */
  readonly rate?: number;
  /** Matching calls it hits before it is spent; default no limit. */
  readonly times?: number;
}

const SEND_TASK_ACTIONS = ['SendTaskSuccess', 'SendTaskFailure', 'SendTaskHeartbeat'];

export class AwsEndpoint {
  private server: Server | undefined;
  private readonly sfnFaults: (StepFunctionsFault & { remaining: number })[] = [];
  /** Step Functions calls failed by a fault, by action. */
  readonly injected = new Map<string, number>();
  /** Secrets by ARN; each read calls its reader (a file read: an edit shows on the authorizer's next refresh). */
  private readonly secrets = new Map<string, () => string>();

  constructor(
    private readonly lambda: LambdaHost,
    private readonly sfn: LocalStepFunctions,
  ) {}

  async start(port = 0): Promise<string> {
    this.server = createServer((req, res) => {
      void this.handle(req, res).catch((err: unknown) => awsError(res, 500, 'ServiceException', String(err)));
    });
    this.server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => this.server?.listen(port, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  addStepFunctionsFault(fault: StepFunctionsFault): void {
    if (fault.rate !== undefined && !(fault.rate > 0 && fault.rate <= 1))
      throw new Error(`A fault's rate must be in (0, 1]: ${fault.rate}`);
    this.sfnFaults.push({ ...fault, remaining: fault.times ?? Number.POSITIVE_INFINITY });
  }

  clearFaults(): void {
    this.sfnFaults.length = 0;
  }

  /** The fault that fails this call of `action`, if any (and count it). */
  private sfnFault(action: string): StepFunctionsFault | undefined {
    const index = this.sfnFaults.findIndex(
      (f) => (f.actions ?? SEND_TASK_ACTIONS).includes(action) && (f.rate === undefined || Math.random() < f.rate),
    );
    if (index < 0) return undefined;
    const fault = this.sfnFaults[index]!;
    if (--fault.remaining <= 0) this.sfnFaults.splice(index, 1);
    this.injected.set(action, (this.injected.get(action) ?? 0) + 1);
    return fault;
  }

  /** Serve a secret whose value `read` returns, under `arn`. */
  putSecret(arn: string, read: () => string): void {
    this.secrets.set(arn, read);
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    const url = new URL(req.url ?? '/', 'http://local');
    const invoke = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/.exec(url.pathname);
    if (invoke && req.method === 'POST')
      return this.invoke(decodeURIComponent(invoke[1] as string), url.searchParams.get('Qualifier') ?? undefined, req, res, body);
    const managed = this.lambdaManagement(req.method ?? 'GET', url, body, res);
    if (managed) return;
    const target = req.headers['x-amz-target'];
    if (typeof target === 'string' && target.startsWith('AWSStepFunctions.'))
      return this.stepFunctions(target.slice('AWSStepFunctions.'.length), body, res);
    if (target === 'secretsmanager.GetSecretValue') return this.getSecretValue(body, res);
    if (typeof target === 'string' && target.startsWith(CLOUDWATCH_TARGET))
      return this.cloudWatch(target.slice(CLOUDWATCH_TARGET.length), body, res);
    awsError(res, 404, 'UnknownOperationException', `${req.method} ${url.pathname} is not served by the local stack`);
  }

  /** Lambda's management calls (lambda-api.ts); false when the request is none of them. */
  private lambdaManagement(method: string, url: URL, body: string, res: ServerResponse): boolean {
    try {
      const reply = lambdaApi(this.lambda, method, url.pathname, url.searchParams, body);
      if (reply === undefined) return false;
      if (reply.body === undefined) {
        res.writeHead(reply.status);
        res.end();
      } else send(res, reply.status, JSON.stringify(reply.body));
    } catch (err) {
      if (!(err instanceof LambdaServiceError)) throw err;
      awsError(res, err.statusCode, err.name, err.message);
    }
    return true;
  }

  /** CloudWatch (cloudwatch-api.ts): JSON 1.0, its errors with their awsQuery code as the SDK reads them. */
  private cloudWatch(action: string, body: string, res: ServerResponse): void {
    try {
      send(res, 200, JSON.stringify(cloudWatchApi(this.lambda.metrics, action, body)), { 'Content-Type': 'application/x-amz-json-1.0' });
    } catch (err) {
      if (!(err instanceof CloudWatchError)) throw err;
      send(res, err.statusCode, JSON.stringify({ __type: err.type, message: err.message }), {
        'Content-Type': 'application/x-amz-json-1.0',
        'x-amzn-query-error': `${err.code};Sender`,
      });
    }
  }

  private async invoke(fn: string, qualifier: string | undefined, req: IncomingMessage, res: ServerResponse, body: string): Promise<void> {
    let event: unknown;
    try {
      event = body === '' ? {} : JSON.parse(body);
    } catch {
      return awsError(res, 400, 'InvalidRequestContentException', 'Could not parse request body into json');
    }
    const type = req.headers['x-amz-invocation-type'] ?? 'RequestResponse';
    try {
      if (type === 'Event') {
        void this.lambda.invoke(fn, event, qualifier).catch(() => undefined);
        return send(res, 202, '');
      }
      const result = await this.lambda.invoke(fn, event, qualifier);
      const headers: Record<string, string> = { 'X-Amz-Executed-Version': result.executedVersion };
      if (result.functionError) headers['X-Amz-Function-Error'] = result.functionError;
      send(res, 200, result.payload, headers);
    } catch (err) {
      if (err instanceof LambdaServiceError) return awsError(res, err.statusCode, err.name, err.message);
      throw err;
    }
  }

  private stepFunctions(action: string, body: string, res: ServerResponse): void {
    let input: Record<string, string | undefined>;
    try {
      input = JSON.parse(body || '{}') as Record<string, string | undefined>;
    } catch {
      return awsError(res, 400, 'SerializationException', 'Invalid JSON');
    }
    const fault = this.sfnFault(action);
    if (fault?.error === 'throttling') return awsError(res, 400, 'ThrottlingException', 'Rate exceeded');
    if (fault?.error === 'server-error') return awsError(res, 500, 'InternalFailure', 'An internal error occurred');
    try {
      switch (action) {
        case 'StartExecution': {
          const e = this.sfn.startExecution(input.stateMachineArn ?? '', input.name, input.input ?? '{}');
          return send(res, 200, JSON.stringify({ executionArn: e.executionArn, startDate: e.startDate.getTime() / 1000 }));
        }
        case 'DescribeExecution': {
          const e = this.sfn.describeExecution(input.executionArn ?? '');
          return send(
            res,
            200,
            JSON.stringify({
              executionArn: e.executionArn,
              stateMachineArn: e.stateMachineArn,
              name: e.name,
              status: e.status,
              startDate: e.startDate.getTime() / 1000,
              stopDate: e.stopDate ? e.stopDate.getTime() / 1000 : undefined,
              input: e.input,
              output: e.output,
              error: e.error,
              cause: e.cause,
            }),
          );
        }
        case 'ListExecutions': {
          const list = this.sfn.listExecutions(input.stateMachineArn ?? '', input.statusFilter);
          return send(
            res,
            200,
            JSON.stringify({
              executions: list.map((e) => ({
                executionArn: e.executionArn,
                stateMachineArn: e.stateMachineArn,
                name: e.name,
                status: e.status,
                startDate: e.startDate.getTime() / 1000,
              })),
            }),
          );
        }
        case 'GetExecutionHistory': {
          const e = this.sfn.describeExecution(input.executionArn ?? '');
          return send(
            res,
            200,
            JSON.stringify({
              events: e.history.map((h, i) => ({
                id: i + 1,
                timestamp: h.timestamp / 1000,
                type: h.type,
                stateEnteredEventDetails: h.state ? { name: h.state } : undefined,
              })),
            }),
          );
        }
        case 'StopExecution':
          this.sfn.stopExecution(input.executionArn ?? '', input.error, input.cause);
          return send(res, 200, JSON.stringify({ stopDate: Date.now() / 1000 }));
        case 'SendTaskSuccess':
          this.sfn.sendTaskSuccess(input.taskToken ?? '', input.output ?? 'null');
          return send(res, 200, '{}');
        case 'SendTaskFailure':
          this.sfn.sendTaskFailure(input.taskToken ?? '', input.error, input.cause);
          return send(res, 200, '{}');
        case 'SendTaskHeartbeat':
          this.sfn.sendTaskHeartbeat(input.taskToken ?? '');
          return send(res, 200, '{}');
        default:
          return awsError(res, 400, 'UnknownOperationException', `Step Functions action ${action} is not served by the local stack`);
      }
    } catch (err) {
      if (err instanceof SfnError) return awsError(res, 400, err.name, err.message);
      throw err;
    }
  }

  private getSecretValue(body: string, res: ServerResponse): void {
    let id = '';
    try {
      id = String((JSON.parse(body || '{}') as { SecretId?: unknown }).SecretId ?? '');
    } catch {
      return awsError(res, 400, 'SerializationException', 'Invalid JSON');
    }
    const read = this.secrets.get(id);
    if (read === undefined) return awsError(res, 400, 'ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
    send(
      res,
      200,
      JSON.stringify({ ARN: id, Name: id.split(':').pop(), SecretString: read(), VersionId: 'local', CreatedDate: Date.now() / 1000 }),
    );
  }
}
