/** The Step Functions implementation of `StepsRunner`. */
import {
  ExecutionAlreadyExists,
  ExecutionDoesNotExist,
  type SFNClient,
  StartExecutionCommand,
  StopExecutionCommand,
} from '@aws-sdk/client-sfn';
import type { StepsInput, StepsRunner } from './context';

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
}
