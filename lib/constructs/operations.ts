/**
 * What an operator is told about: CloudWatch alarms on every dead-letter queue, the conductor's
 * errors and throttles, failed and timed-out step executions, the API's 5xx answers and the
 * authorizer's errors and throttles, all notifying one SNS topic (the operator's, or one made here,
 * encrypted with the stack's key, for them to subscribe to); optionally a dashboard of the same.
 */
import { Duration } from 'aws-cdk-lib';
import type { Stage } from 'aws-cdk-lib/aws-apigateway';
import {
  Alarm,
  AlarmStatusWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IMetric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { type ITopic, Topic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import type { IronlessFunction } from './function';

export interface OperationsProps {
  readonly conductor: IronlessFunction;
  readonly api: IronlessFunction;
  readonly authorizer?: IronlessFunction;
  readonly stage: Stage;
  readonly stateMachine: StateMachine;
  /** Queues whose messages are failures to look at (label → queue): the DLQs, the periodic tasks' failures. */
  readonly deadLetterQueues: ReadonlyMap<string, IQueue>;
  /** Where alarms notify. @default a new topic, encrypted with `key` */
  readonly topic?: ITopic;
  readonly key: IKey;
  /** @default false */
  readonly dashboard?: boolean;
}

const PERIOD = Duration.minutes(5);

export class Operations extends Construct {
  readonly topic: ITopic;
  readonly alarms: Alarm[] = [];
  readonly dashboard: Dashboard | undefined;

  constructor(scope: Construct, id: string, props: OperationsProps) {
    super(scope, id);
    this.topic = props.topic ?? new Topic(this, 'Topic', { displayName: 'Ironless alarms', masterKey: props.key, enforceSSL: true });
    const action = new SnsAction(this.topic);
    const alarm = (name: string, metric: IMetric, threshold: number, description: string) => {
      const created = new Alarm(this, name, {
        metric,
        threshold,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        alarmDescription: description,
      });
      created.addAlarmAction(action);
      this.alarms.push(created);
    };

    for (const [label, queue] of props.deadLetterQueues) {
      alarm(
        `${label}Depth`,
        queue.metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: 'Maximum' }),
        1,
        `Messages wait in ${label}: work that failed every attempt. Read them, fix the cause, then redrive or delete them.`,
      );
    }
    const conductor = props.conductor.function;
    alarm('ConductorErrors', conductor.metricErrors({ period: PERIOD }), 1, 'Conductor invocations failed (see its log group).');
    alarm(
      'ConductorThrottles',
      conductor.metricThrottles({ period: PERIOD }),
      1,
      'Conductor invocations were throttled: the account or function concurrency is exhausted.',
    );
    alarm(
      'StepsFailed',
      props.stateMachine.metricFailed({ period: PERIOD }),
      1,
      'Step executions failed outside their failure handler (nodes may be left locked until the stuck-node check).',
    );
    alarm('StepsTimedOut', props.stateMachine.metricTimedOut({ period: PERIOD }), 1, 'Step executions timed out.');
    alarm(
      'Api5xx',
      props.stage.metricServerError({ period: PERIOD, statistic: 'Sum' }),
      5,
      'The API answered 5xx (function errors, timeouts, throttling behind the gateway, authorizer failures).',
    );
    alarm('ApiThrottles', props.api.function.metricThrottles({ period: PERIOD }), 1, 'The api function hit its reserved concurrency.');
    if (props.authorizer) {
      const authorizer = props.authorizer.function;
      alarm(
        'AuthorizerErrors',
        authorizer.metricErrors({ period: PERIOD }),
        1,
        'The http_basic authorizer failed (is its secret readable?).',
      );
      alarm(
        'AuthorizerThrottles',
        authorizer.metricThrottles({ period: PERIOD }),
        1,
        'The http_basic authorizer hit its reserved concurrency: many uncached credentials, e.g. password guessing.',
      );
    }

    this.dashboard = props.dashboard ? this.addDashboard(props) : undefined;
  }

  private addDashboard(props: OperationsProps): Dashboard {
    const dashboard = new Dashboard(this, 'Dashboard', { defaultInterval: Duration.hours(3) });
    const conductor = props.conductor.function;
    dashboard.addWidgets(new AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms, width: 24 }));
    dashboard.addWidgets(
      new GraphWidget({
        title: 'API',
        left: [props.stage.metricCount({ period: PERIOD }), props.stage.metricServerError({ period: PERIOD })],
        right: [props.stage.metricLatency({ period: PERIOD, statistic: 'p99' })],
      }),
      new GraphWidget({
        title: 'Conductor',
        left: [conductor.metricInvocations({ period: PERIOD }), conductor.metricErrors({ period: PERIOD })],
        right: [conductor.metricDuration({ period: PERIOD, statistic: 'p99' })],
      }),
      new GraphWidget({
        title: 'Step executions',
        left: [
          props.stateMachine.metricStarted({ period: PERIOD }),
          props.stateMachine.metricSucceeded({ period: PERIOD }),
          props.stateMachine.metricFailed({ period: PERIOD }),
        ],
      }),
      new GraphWidget({
        title: 'Dead-letter queues',
        left: [...props.deadLetterQueues.values()].map((q) =>
          q.metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: 'Maximum' }),
        ),
      }),
    );
    return dashboard;
  }
}
