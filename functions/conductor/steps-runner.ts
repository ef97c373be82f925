/** The Step Functions implementation of `StepsRunner`. */
import {
  ExecutionAlreadyExists,
  ExecutionDoesNotExist,
  type SFNClient,
  SendTaskFailureCommand,
  SendTaskHeartbeatCommand,
  SendTaskSuccessCommand,
  StartExecutionCommand,
  StopExecutionCommand,
} from '@aws-sdk/client-sfn';
import type { Decision, StepsInput, StepsRunner } from './context';

/** Errors saying the task token is spent: the task already ended (timed out, stopped, completed). */
const GONE = new Set(['TaskTimedOut', 'InvalidToken', 'TaskDoesNotExist']);

export class SfnStepsRunner implements StepsRunner {
  constructor(
    private readonly sfn: SFNClient,
    private readonly stateMachineArn: string,
  ) {}

  async start(name: string, input: StepsInput): Promise<string> {
    const executionArn = `${this.stateMachineArn.replace(':stateMachine:', ':execution:')}:${name}`;
    try {
      const out = await this.sfn.send(
        new StartExecutionCommand({ stateMachineArn: this.stateMachineArn, name, input: JSON.stringify(input) }),
      );
      return out.executionArn ?? executionArn;
    } catch (err) {
      // Started before (a redelivered message): running or finished, it is the same flow.
      if (err instanceof ExecutionAlreadyExists || (err as { name?: string }).name === 'ExecutionAlreadyExists') return executionArn;
      throw err;
    }
  }

  async stop(name: string, cause: string): Promise<void> {
    const executionArn = `${this.stateMachineArn.replace(':stateMachine:', ':execution:')}:${name}`;
    try {
      await this.sfn.send(new StopExecutionCommand({ executionArn, error: 'Aborted', cause }));
    } catch (err) {
      if (err instanceof ExecutionDoesNotExist || (err as { name?: string }).name === 'ExecutionDoesNotExist') return;
      throw err;
    }
  }

  succeed(token: string, decision: Decision): Promise<boolean> {
    return this.tokenCall(new SendTaskSuccessCommand({ taskToken: token, output: JSON.stringify(decision) }));
  }

  fail(token: string, error: string, cause: string): Promise<boolean> {
    // Step Functions limits: error 256 characters, cause 32768.
    return this.tokenCall(new SendTaskFailureCommand({ taskToken: token, error: error.slice(0, 256), cause: cause.slice(0, 32768) }));
  }

  heartbeat(token: string): Promise<boolean> {
    return this.tokenCall(new SendTaskHeartbeatCommand({ taskToken: token }));
  }

  private async tokenCall(command: SendTaskSuccessCommand | SendTaskFailureCommand | SendTaskHeartbeatCommand): Promise<boolean> {
    try {
      await this.sfn.send(command as SendTaskSuccessCommand);
      return true;
    } catch (err) {
      if (GONE.has((err as { name?: string }).name ?? '')) return false;
      throw err;
    }
  }
}
