import { type HistoryEvent, stepRun } from '../../../ui/src/steps';

const started = (at: string, label: string, step: string, priority: number): HistoryEvent => ({
  created_at: at,
  severity: 'INFO',
  event_type: label === 'Deploy' ? 'deploying' : 'cleaning',
  event: `${label} step ${step} (priority ${priority}) started`,
});

const STEPS = [
  { interface: 'deploy', step: 'deploy', priority: 100, args: {} },
  { interface: 'deploy', step: 'write_image', priority: 80, args: {} },
  { interface: 'deploy', step: 'boot_instance', priority: 20, args: {} },
];

describe('stepRun', () => {
  it('shows a running deploy from the node, with starts and durations from its history', () => {
    const node = {
      provision_state: 'wait call-back',
      deploy_step: STEPS[1],
      driver_internal_info: { deploy_steps: STEPS, deploy_step_index: 1, agent_last_heartbeat: '2026-11-25T10:00:09Z' },
    };
    const history = [
      // An earlier, failed run must not lend its times.
      started('2026-11-25T09:00:00Z', 'Deploy', 'deploy.deploy', 100),
      { created_at: '2026-11-25T09:00:05Z', severity: 'ERROR', event_type: 'deploying', event: 'boom' },
      started('2026-11-25T10:00:00Z', 'Deploy', 'deploy.deploy', 100),
      started('2026-11-25T10:00:04Z', 'Deploy', 'deploy.write_image', 80),
    ];
    const run = stepRun(node, history, Date.parse('2026-11-25T10:00:10Z'));
    expect(run?.source).toBe('live');
    expect(run?.outcome).toBe('running');
    expect(run?.rows.map((r) => [r.step, r.status, r.startedAt, r.durationMs, r.inband])).toEqual([
      ['deploy', 'done', '2026-11-25T10:00:00Z', 4000, false],
      ['write_image', 'running', '2026-11-25T10:00:04Z', 6000, true],
      ['boot_instance', 'pending', undefined, undefined, false],
    ]);
  });

  it('shows the last run from history once the step list is gone, and where it failed', () => {
    const node = { provision_state: 'deploy failed', driver_internal_info: {}, provision_updated_at: '2026-11-25T10:00:09Z' };
    const history = [
      started('2026-11-25T10:00:00Z', 'Deploy', 'deploy.deploy', 100),
      started('2026-11-25T10:00:04Z', 'Deploy', 'deploy.write_image', 80),
      { created_at: '2026-11-25T10:00:07Z', severity: 'ERROR', event_type: 'deploying', event: 'Deploy step deploy.write_image failed' },
    ];
    const run = stepRun(node, history, Date.parse('2026-11-25T10:01:00Z'));
    expect(run?.source).toBe('history');
    expect(run?.outcome).toBe('failed');
    expect(run?.failure?.event).toBe('Deploy step deploy.write_image failed');
    expect(run?.rows.map((r) => [r.step, r.status, r.durationMs])).toEqual([
      ['deploy', 'done', 4000],
      ['write_image', 'failed', 3000],
    ]);
  });

  it("shows a stable node's latest run of any flow, ended when its state last changed", () => {
    const node = { provision_state: 'available', driver_internal_info: {}, provision_updated_at: '2026-11-25T10:00:30Z' };
    const history = [
      started('2026-11-25T09:00:00Z', 'Deploy', 'deploy.deploy', 100),
      started('2026-11-25T10:00:00Z', 'Clean', 'deploy.erase_devices_metadata', 99),
    ];
    const run = stepRun(node, history, Date.parse('2026-11-25T11:00:00Z'));
    expect([run?.flow, run?.outcome, run?.rows.map((r) => [r.step, r.durationMs])]).toEqual([
      'clean',
      'finished',
      [['erase_devices_metadata', 30_000]],
    ]);
  });

  it('has nothing to show for a node without steps or history', () => {
    expect(stepRun({ provision_state: 'enroll' }, [], 0)).toBeUndefined();
  });
});
