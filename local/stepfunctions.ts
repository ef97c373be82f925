/**
 * Step Functions on one machine: the ASL files CDK deploys, executed by aws-local-stepfunctions,
 * plus what that library leaves out and Ironless needs: named executions (StartExecution is
 * idempotent by name and input), the Lambda service integrations (`lambda:invoke` and
 * `lambda:invoke.waitForTaskToken`), task tokens with SendTaskSuccess/Failure/Heartbeat, and
 * `HeartbeatSeconds` (a waiting task that hears nothing fails with States.HeartbeatTimeout).
 */
import { randomBytes } from 'node:crypto';
import { StateMachine } from 'aws-local-stepfunctions';
import { ACCOUNT, type LambdaHost, REGION } from './lambda-host';

export class SfnError extends Error {
  constructor(
    override readonly name: string,
    message: string,
  ) {
    super(message);
  }
}

type Status = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED';

export interface HistoryEvent {
  readonly timestamp: number;
  readonly type: string;
  readonly state?: string;
  readonly detail?: unknown;
}

export interface Execution {
  readonly executionArn: string;
  readonly stateMachineArn: string;
  readonly name: string;
  readonly input: string;
  readonly startDate: Date;
  status: Status;
  stopDate?: Date;
  output?: string;
  error?: string;
  cause?: string;
  readonly history: HistoryEvent[];
  abort?: () => void;
}

interface Waiter {
  readonly executionArn: string;
  readonly resolve: (output: unknown) => void;
  readonly reject: (err: Error) => void;
  readonly heartbeatSeconds: number | undefined;
  timer: NodeJS.Timeout | undefined;
}

interface TaskState {
  readonly Type: string;
  readonly Resource?: string;
  readonly HeartbeatSeconds?: number;
}

const TOKEN_PLACEHOLDER = 'LOCAL-TASK-TOKEN';

export class LocalStepFunctions {
  private readonly machines = new Map<string, { name: string; definition: Record<string, unknown>; machine: StateMachine }>();
  private readonly executions = new Map<string, Execution>();
  private readonly waiters = new Map<string, Waiter>();
  private readonly onEvent: (line: string) => void;
  /** State transitions (states entered) across all executions, for benchmarks. */
  transitions = 0;

  constructor(
    private readonly lambda: LambdaHost,
    options: { onEvent?: (line: string) => void } = {},
  ) {
    this.onEvent = options.onEvent ?? (() => {});
  }

  createStateMachine(name: string, definitionJson: string): string {
    const arn = `arn:aws:states:${REGION}:${ACCOUNT}:stateMachine:${name}`;
    const definition = JSON.parse(definitionJson) as Record<string, unknown>;
    const machine = new StateMachine(definition as never, { validationOptions: { checkArn: false, checkPaths: true } });
    this.machines.set(arn, { name, definition, machine });
    return arn;
  }

  startExecution(stateMachineArn: string, name: string | undefined, input: string): Execution {
    const sm = this.machines.get(stateMachineArn);
    if (sm === undefined) throw new SfnError('StateMachineDoesNotExist', `State Machine Does Not Exist: '${stateMachineArn}'`);
    const executionName = name ?? randomBytes(16).toString('hex');
    const executionArn = `arn:aws:states:${REGION}:${ACCOUNT}:execution:${sm.name}:${executionName}`;
    const existing = this.executions.get(executionArn);
    if (existing) {
      if (existing.status === 'RUNNING' && existing.input === input) return existing;
      throw new SfnError('ExecutionAlreadyExists', `Execution Already Exists: '${executionArn}'`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(input);
    } catch {
      throw new SfnError('InvalidExecutionInput', 'Invalid execution input: not JSON');
    }
    const execution: Execution = {
      executionArn,
      stateMachineArn,
      name: executionName,
      input,
      startDate: new Date(),
      status: 'RUNNING',
      history: [],
    };
    this.executions.set(executionArn, execution);
    void this.run(sm, execution, parsed);
    return execution;
  }

  describeExecution(executionArn: string): Execution {
    const execution = this.executions.get(executionArn);
    if (execution === undefined) throw new SfnError('ExecutionDoesNotExist', `Execution Does Not Exist: '${executionArn}'`);
    return execution;
  }

  listExecutions(stateMachineArn: string, status?: string): Execution[] {
    return [...this.executions.values()].filter(
      (e) => e.stateMachineArn === stateMachineArn && (status === undefined || e.status === status),
    );
  }

  stopExecution(executionArn: string, error?: string, cause?: string): void {
    const execution = this.describeExecution(executionArn);
    if (execution.status !== 'RUNNING') return;
    execution.status = 'ABORTED';
    execution.error = error;
    execution.cause = cause;
    execution.stopDate = new Date();
    execution.abort?.();
    for (const [token, waiter] of this.waiters) if (waiter.executionArn === executionArn) this.abandonWaiter(token);
  }

  sendTaskSuccess(token: string, output: string): void {
    const waiter = this.takeWaiter(token);
    let parsed: unknown;
    try {
      parsed = JSON.parse(output);
    } catch {
      throw new SfnError('InvalidOutput', 'Invalid task output: not JSON');
    }
    waiter.resolve(parsed);
  }

  sendTaskFailure(token: string, error: string | undefined, cause: string | undefined): void {
    const waiter = this.takeWaiter(token);
    waiter.reject(new SfnError(error ?? 'TaskFailed', cause ?? ''));
  }

  sendTaskHeartbeat(token: string): void {
    const waiter = this.waiters.get(token);
    if (waiter === undefined) throw new SfnError('TaskTimedOut', 'Task Timed Out');
    this.armHeartbeat(token, waiter);
  }

  /** Executions still running (local stop waits for none; they are abandoned like a dead region). */
  running(): Execution[] {
    return [...this.executions.values()].filter((e) => e.status === 'RUNNING');
  }

  stop(): void {
    for (const execution of this.running()) execution.abort?.();
    for (const token of [...this.waiters.keys()]) this.abandonWaiter(token);
  }

  // --- execution ------------------------------------------------------------------------------

  private async run(
    sm: { name: string; definition: Record<string, unknown>; machine: StateMachine },
    execution: Execution,
    input: unknown,
  ): Promise<void> {
    const states = (sm.definition.States ?? {}) as Record<string, TaskState>;
    const overrides: Record<string, (input: unknown) => Promise<unknown>> = {};
    for (const [stateName, state] of Object.entries(states)) {
      if (state.Type !== 'Task') continue;
      overrides[stateName] = (taskInput) => this.runTask(execution, stateName, state, taskInput);
    }
    const context = {
      Execution: { Id: execution.executionArn, Name: execution.name },
      StateMachine: { Id: execution.stateMachineArn, Name: sm.name },
      Task: { Token: TOKEN_PLACEHOLDER },
    };
    const run = sm.machine.run(input as never, {
      overrides: { taskResourceLocalHandlers: overrides as never },
      context,
      noThrowOnAbort: true,
    });
    execution.abort = run.abort;
    this.onEvent(`steps: execution ${execution.name} started`);
    const events = (async () => {
      for await (const event of run.eventLogs) {
        const e = event as { type: string; timestamp?: number; state?: { name?: string } };
        if (e.type === 'StateEntered') this.transitions++;
        execution.history.push({ timestamp: e.timestamp ?? Date.now(), type: e.type, state: e.state?.name });
      }
    })();
    try {
      const output = await run.result;
      if (execution.status === 'RUNNING') {
        execution.status = 'SUCCEEDED';
        execution.output = JSON.stringify(output ?? null);
      }
    } catch (err) {
      if (execution.status === 'RUNNING') {
        const cause = (err as { cause?: { name?: string; message?: string } }).cause;
        execution.status = cause?.name === 'ExecutionTimeoutError' ? 'TIMED_OUT' : 'FAILED';
        execution.error = cause?.name ?? (err as Error).name;
        execution.cause = cause?.message ?? (err as Error).message;
      }
    }
    execution.stopDate = new Date();
    await events.catch(() => undefined);
    const took = execution.stopDate.getTime() - execution.startDate.getTime();
    this.onEvent(
      `steps: execution ${execution.name} ${execution.status.toLowerCase()} in ${took} ms${execution.error ? ` (${execution.error})` : ''}`,
    );
  }

  /** One Task state: the Lambda service integrations Ironless's ASL uses. */
  private async runTask(execution: Execution, stateName: string, state: TaskState, input: unknown): Promise<unknown> {
    const resource = state.Resource ?? '';
    const params = input as { FunctionName?: string; Payload?: unknown };
    if (resource === 'arn:aws:states:::lambda:invoke') {
      return this.invokeLambda(params);
    }
    if (resource === 'arn:aws:states:::lambda:invoke.waitForTaskToken') {
      const token = `${randomBytes(24).toString('base64url')}`;
      const payload = replaceToken(params.Payload, token);
      const waiting = new Promise<unknown>((resolve, reject) => {
        const waiter: Waiter = {
          executionArn: execution.executionArn,
          resolve,
          reject,
          heartbeatSeconds: state.HeartbeatSeconds,
          timer: undefined,
        };
        this.waiters.set(token, waiter);
        this.armHeartbeat(token, waiter);
      });
      // Stopped (or timed out) while the invoke below still runs, the waiter fails before anyone
      // awaits it: not an unhandled rejection; the state still sees the failure when it awaits.
      waiting.catch(() => undefined);
      try {
        await this.invokeLambda({ FunctionName: params.FunctionName, Payload: payload });
      } catch (err) {
        this.dropWaiter(token);
        throw err;
      }
      return waiting;
    }
    throw new SfnError('States.Runtime', `State ${stateName}: resource ${resource} is not supported by the local stack`);
  }

  private async invokeLambda(params: { FunctionName?: string; Payload?: unknown }): Promise<unknown> {
    if (typeof params.FunctionName !== 'string') throw new SfnError('States.Runtime', 'lambda:invoke needs Parameters.FunctionName');
    let result: Awaited<ReturnType<LambdaHost['invoke']>>;
    try {
      result = await this.lambda.invoke(params.FunctionName, params.Payload ?? {});
    } catch (err) {
      throw new SfnError(`Lambda.${(err as Error).name}`, (err as Error).message);
    }
    const payload = JSON.parse(result.payload) as unknown;
    if (result.functionError) {
      const error = payload as { errorType?: string; errorMessage?: string };
      // As Step Functions does: the error name is the function's errorType, the cause its payload.
      throw new SfnError(error.errorType ?? 'Lambda.Unknown', result.payload);
    }
    return { ExecutedVersion: result.executedVersion, Payload: payload, StatusCode: 200 };
  }

  private armHeartbeat(token: string, waiter: Waiter): void {
    if (waiter.timer) clearTimeout(waiter.timer);
    if (waiter.heartbeatSeconds === undefined) return;
    waiter.timer = setTimeout(() => {
      this.waiters.delete(token);
      waiter.reject(new SfnError('States.HeartbeatTimeout', `No heartbeat in ${waiter.heartbeatSeconds} seconds`));
    }, waiter.heartbeatSeconds * 1000);
  }

  private takeWaiter(token: string): Waiter {
    const waiter = this.waiters.get(token);
    if (waiter === undefined) throw new SfnError('TaskTimedOut', 'Task Timed Out');
    this.dropWaiter(token);
    return waiter;
  }

  /**
   * A waiting task whose execution was stopped ends now, failed. Only dropping it would leave its
   * promise pending for good, and with it the library's `TimeoutSeconds` timer on the task state
   * (CallbackTimeoutSeconds, up to 30 minutes), which abort does not clear: a stopped stack then
   * kept its process alive until that timer fired. The execution is already aborted, so the
   * failure goes no further (its name matches none of the ASL's retriers).
   */
  private abandonWaiter(token: string): void {
    const waiter = this.waiters.get(token);
    if (waiter === undefined) return;
    this.dropWaiter(token);
    waiter.reject(new SfnError('ExecutionAborted', 'The execution was stopped'));
  }

  private dropWaiter(token: string): void {
    const waiter = this.waiters.get(token);
    if (waiter?.timer) clearTimeout(waiter.timer);
    this.waiters.delete(token);
  }
}

/** The library resolves `$$.Task.Token` from a fixed context; give each waiting task its own token. */
function replaceToken(value: unknown, token: string): unknown {
  if (value === TOKEN_PLACEHOLDER) return token;
  if (Array.isArray(value)) return value.map((v) => replaceToken(v, token));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, replaceToken(v, token)]));
  }
  return value;
}
