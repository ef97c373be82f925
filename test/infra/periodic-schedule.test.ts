/**
 * Ironic's periodic intervals as settings: the power sync (`sync_power_state_interval`, master's
 * 120 s), the wait-timeout check (`check_provision_state_interval`) and history trimming
 * (`node_history_cleanup_interval`) become EventBridge rates; 0 turns a task off.
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { IronlessStack } from '../../lib/ironless-stack';
import { propsFromContext } from '../../lib/app-context';
import { periodicSchedule } from '../../lib/periodic-schedule';
import { DEFAULT_SETTINGS } from '../../lib/settings';
import { PERIODIC_TASKS } from '../../functions/conductor/schedules';

/** Task → the schedule expression of its rule. */
function rates(template: Template): Record<string, string> {
  const rules = Object.values(template.findResources('AWS::Events::Rule')) as {
    Properties: { ScheduleExpression: string; Targets: { Input: string }[] };
  }[];
  return Object.fromEntries(
    rules.map((r) => [(JSON.parse(r.Properties.Targets[0]!.Input) as { task: string }).task, r.Properties.ScheduleExpression]),
  );
}

it('schedules the power sync every 2 minutes by default (Ironic master), the other tasks as before', () => {
  expect(rates(Template.fromStack(new IronlessStack(new App(), 'Defaults')))).toEqual({
    fail_stuck_nodes: 'rate(1 minute)',
    sync_power_states: 'rate(2 minutes)',
    fail_timed_out_waits: 'rate(1 minute)',
    poll_waiting_steps: 'rate(1 minute)',
    conductor_heartbeat: 'rate(1 minute)',
    manage_node_history: 'rate(1 day)',
  });
  expect(Object.keys(periodicSchedule(DEFAULT_SETTINGS)).sort()).toEqual(Object.keys(PERIODIC_TASKS).sort());
});

it('follows the interval settings, and turns a task off at 0', () => {
  const template = Template.fromStack(
    new IronlessStack(new App(), 'Intervals', {
      settings: { syncPowerStateIntervalSeconds: 600, checkProvisionStateIntervalSeconds: 0, nodeHistoryCleanupIntervalSeconds: 3600 },
    }),
  );
  const expressions = rates(template);
  expect(expressions).toMatchObject({ sync_power_states: 'rate(10 minutes)', manage_node_history: 'rate(1 hour)' });
  expect(expressions).not.toHaveProperty('fail_timed_out_waits');
  expect(Object.keys(expressions)).toHaveLength(Object.keys(PERIODIC_TASKS).length - 1);
});

it('refuses intervals EventBridge cannot schedule, naming the setting', () => {
  for (const seconds of [90, -60, 1.5]) {
    expect(
      () =>
        new IronlessStack(new App(), `Bad${String(seconds).replace(/\W/g, '')}`, { settings: { syncPowerStateIntervalSeconds: seconds } }),
    ).toThrow(`syncPowerStateIntervalSeconds (${seconds}) must be 0 (off) or a whole number of minutes in seconds`);
  }
});

it('takes the intervals from CDK context', () => {
  const app = new App({ context: { syncPowerStateInterval: '300', checkProvisionStateInterval: 0, nodeHistoryCleanupInterval: '43200' } });
  expect(propsFromContext(app.node).settings).toMatchObject({
    syncPowerStateIntervalSeconds: 300,
    checkProvisionStateIntervalSeconds: 0,
    nodeHistoryCleanupIntervalSeconds: 43_200,
  });
  expect(() => propsFromContext(new App({ context: { syncPowerStateInterval: 'often' } }).node)).toThrow(
    'context syncPowerStateInterval must be a whole number, got "often"',
  );
});
