/**
 * Conductor groups and liveness in the CDK stack: one queue and one DLQ of its own per configured
 * group, each mapped to the conductor alias; the heartbeat schedule; the heartbeat timeout both
 * functions read (the API for `alive` and routing, the conductor for nothing but consistency).
 */
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { propsFromContext } from '../../lib/app-context';
import { IronlessStack } from '../../lib/ironless-stack';

/** The stack's own functions (not the custom-resource provider CDK adds). */
const IRONLESS_FUNCTION = { Properties: { Description: Match.stringLikeRegexp('^Ironless ') } };

const GROUPS = ['', 'rack-a', 'rack-b'];
const template = Template.fromStack(new IronlessStack(new App(), 'Groups', { settings: { conductorGroups: GROUPS } }));

type Queue = { Properties: { RedrivePolicy?: { deadLetterTargetArn: { 'Fn::GetAtt': [string, string] } } } };

it('gives every configured group its own queue with its own DLQ, each queue mapped to the conductor alias', () => {
  const queues = Object.entries(template.findResources('AWS::SQS::Queue')) as [string, Queue][];
  const main = queues.filter(([, q]) => q.Properties.RedrivePolicy !== undefined);
  // The periodic tasks' failure queue is no group's (operations.test.ts).
  const dlqs = queues.filter(([id, q]) => q.Properties.RedrivePolicy === undefined && !id.startsWith('PeriodicFailures')).map(([id]) => id);
  expect(main).toHaveLength(GROUPS.length);
  expect(dlqs).toHaveLength(GROUPS.length);
  // No two queues share a DLQ.
  expect(new Set(main.map(([, q]) => q.Properties.RedrivePolicy?.deadLetterTargetArn['Fn::GetAtt'][0])).size).toBe(GROUPS.length);
  for (const [, q] of main) expect(dlqs).toContain(q.Properties.RedrivePolicy?.deadLetterTargetArn['Fn::GetAtt'][0]);
  const mappings = Object.values(template.findResources('AWS::Lambda::EventSourceMapping')) as {
    Properties: { EventSourceArn: unknown };
  }[];
  expect(new Set(mappings.map((m) => JSON.stringify(m.Properties.EventSourceArn)))).toEqual(
    new Set(main.map(([id]) => JSON.stringify({ 'Fn::GetAtt': [id, 'Arn'] }))),
  );
});

it('schedules the conductor heartbeat every minute on the conductor alias', () => {
  template.hasResourceProperties('AWS::Events::Rule', {
    ScheduleExpression: 'rate(1 minute)',
    Targets: Match.arrayWith([
      Match.objectLike({
        Arn: Match.objectLike({ Ref: Match.stringLikeRegexp('ConductorLive') }),
        Input: '{"entry":"periodic","task":"conductor_heartbeat"}',
      }),
    ]),
  });
});

it("tells both functions Ironic's heartbeat_timeout", () => {
  const functions = Object.values(template.findResources('AWS::Lambda::Function', IRONLESS_FUNCTION)) as {
    Properties: { Description: string; Environment?: { Variables: Record<string, unknown> } };
  }[];
  for (const name of ['api', 'conductor']) {
    const fn = functions.find((f) => f.Properties.Description.includes(`Ironless ${name}`));
    expect(fn?.Properties.Environment?.Variables.CONDUCTOR_HEARTBEAT_TIMEOUT).toBe('150');
  }
});

it('refuses a heartbeat timeout that a missed heartbeat would exceed', () => {
  expect(() => new IronlessStack(new App(), 'Flappy', { settings: { conductorHeartbeatTimeoutSeconds: 60 } })).toThrow(
    'conductorHeartbeatTimeoutSeconds (60) must be more than twice the conductor heartbeat interval (60 s)',
  );
});

describe('per-group concurrency', () => {
  it("caps a group's event source mapping at its conductorGroupConcurrency (MaximumConcurrency), others uncapped", () => {
    const capped = Template.fromStack(
      new IronlessStack(new App(), 'Capped', { settings: { conductorGroups: GROUPS, conductorGroupConcurrency: { 'rack-a': 5, '': 50 } } }),
    );
    const mappings = Object.values(capped.findResources('AWS::Lambda::EventSourceMapping')) as {
      Properties: { EventSourceArn: { 'Fn::GetAtt': [string, string] }; ScalingConfig?: { MaximumConcurrency: number } };
    }[];
    const byQueue = Object.fromEntries(mappings.map((m) => [m.Properties.EventSourceArn['Fn::GetAtt'][0], m.Properties.ScalingConfig]));
    // Queues' logical ids carry their group's label (rack-a → "racka…", "" → "default…").
    const queueOf = (label: string) => Object.keys(byQueue).find((id) => id.toLowerCase().includes(label)) as string;
    expect(Object.keys(byQueue)).toHaveLength(3);
    expect(byQueue[queueOf('racka')]).toEqual({ MaximumConcurrency: 5 });
    expect(byQueue[queueOf('default')]).toEqual({ MaximumConcurrency: 50 });
    expect(byQueue[queueOf('rackb')]).toBeUndefined();
    expect(Object.values(byQueue).filter((c) => c !== undefined)).toHaveLength(2);
  });

  it('refuses a cap outside 2–1000 or for a group that is not configured, and reads -c group=N pairs', () => {
    expect(() => new IronlessStack(new App(), 'One', { settings: { conductorGroupConcurrency: { '': 1 } } })).toThrow(
      'conductorGroupConcurrency of group "" (1) must be a whole number from 2 to 1000',
    );
    expect(() => new IronlessStack(new App(), 'Unknown', { settings: { conductorGroupConcurrency: { 'rack-z': 4 } } })).toThrow(
      'conductorGroupConcurrency names group "rack-z", which is not in conductorGroups ("")',
    );
    const app = new App({ context: { conductorGroups: ',rack-a', conductorGroupConcurrency: 'rack-a=4, =20' } });
    expect(propsFromContext(app.node).settings).toEqual({
      conductorGroups: ['', 'rack-a'],
      conductorGroupConcurrency: { 'rack-a': 4, '': 20 },
    });
    expect(() => propsFromContext(new App({ context: { conductorGroupConcurrency: 'rack-a' } }).node)).toThrow('takes group=N pairs');
    expect(() => propsFromContext(new App({ context: { conductorGroupConcurrency: 'rack-a=many' } }).node)).toThrow(
      'must be a whole number, got "many"',
    );
  });
});
