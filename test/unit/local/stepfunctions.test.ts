import { jest } from '@jest/globals';
import type { LambdaHost } from '../../../local/lambda-host';
import { type Execution, LocalStepFunctions } from '../../../local/stepfunctions';

/**
 * A task that waits for its token (with the long TimeoutSeconds the steps machine gives it), caught
 * into a failure task, as in statemachines/steps.asl.json.
 */
const DEFINITION = JSON.stringify({
  StartAt: 'Wait',
  States: {
    Wait: {
      Type: 'Task',
      Resource: 'arn:aws:states:::lambda:invoke.waitForTaskToken',
      Parameters: { FunctionName: 'conductor', Payload: { action: 'start', 'token.$': '$$.Task.Token' } },
      HeartbeatSeconds: 300,
      TimeoutSeconds: 1800,
      Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: 'Failed' }],
      Next: 'Done',
    },
    Failed: {
      Type: 'Task',
      Resource: 'arn:aws:states:::lambda:invoke',
      Parameters: { FunctionName: 'conductor', Payload: { action: 'fail' } },
      End: true,
    },
    Done: { Type: 'Succeed' },
  },
});

/** Lets the library's promise chains run (fake timers leave setImmediate real). */
async function drain(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe('LocalStepFunctions', () => {
  let invoke: jest.Mock<(ref: string, event: unknown) => Promise<{ statusCode: number; payload: string }>>;
  let sfn: LocalStepFunctions;
  let execution: Execution;

  beforeEach(async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
    invoke = jest.fn(async () => ({ statusCode: 200, payload: '{}' }));
    sfn = new LocalStepFunctions({ invoke } as unknown as LambdaHost);
    execution = sfn.startExecution(sfn.createStateMachine('steps', DEFINITION), 'deploy-1', '{}');
    await drain();
    // The task is waiting for its token: its heartbeat timer and the library's TimeoutSeconds timer.
    expect(invoke).toHaveBeenCalledTimes(1);
    expect(jest.getTimerCount()).toBe(2);
  });

  afterEach(() => {
    jest.useRealTimers();
  });

  it('stopExecution ends a waiting task and leaves no timer behind; the catch does not run', async () => {
    sfn.stopExecution(execution.executionArn, 'Aborted', 'by the test');
    await drain();
    expect(jest.getTimerCount()).toBe(0);
    expect(execution).toMatchObject({ status: 'ABORTED', error: 'Aborted' });
    expect(invoke).toHaveBeenCalledTimes(1);
    expect(sfn.running()).toEqual([]);
  });

  it('stop ends every waiting task and leaves no timer behind', async () => {
    sfn.stop();
    await drain();
    expect(jest.getTimerCount()).toBe(0);
    expect(invoke).toHaveBeenCalledTimes(1);
  });

  it('a task token still answers after its execution was stopped: TaskTimedOut', async () => {
    const token = (invoke.mock.calls[0]?.[1] as { token: string }).token;
    sfn.stopExecution(execution.executionArn);
    await drain();
    expect(() => sfn.sendTaskSuccess(token, '{}')).toThrow('Task Timed Out');
  });
});
