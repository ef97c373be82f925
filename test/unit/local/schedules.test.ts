import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { periodicSchedule } from '../../../lib/periodic-schedule';
import { DEFAULT_SETTINGS, LOCAL_STACK_DEFAULTS } from '../../../lib/settings';
import type { LambdaHost } from '../../../local/lambda-host';
import { LocalSchedules } from '../../../local/schedules';

type Call = { ref: string; payload: { entry: string; task: string }; version?: string };

/** The two LambdaHost calls the schedules make, recorded; a version listed in `failing` fails. */
function fakeLambda(weights: Record<string, number> = {}, failing: string[] = []) {
  const calls: Call[] = [];
  const lambda = {
    getAlias: () => ({ version: '1', weights }),
    invoke: async (ref: string, payload: Call['payload'], version?: string) => {
      calls.push({ ref, payload, ...(version ? { version } : {}) });
      return failing.includes(version ?? '') ? { functionError: 'Unhandled', payload: 'boom' } : { payload: '{}' };
    },
  };
  return { lambda: lambda as unknown as LambdaHost, calls };
}

const settings = { ...DEFAULT_SETTINGS, ...LOCAL_STACK_DEFAULTS };

describe('LocalSchedules', () => {
  afterEach(() => {
    jest.useRealTimers();
  });

  it('beats at once for every version the alias routes to, and logs a beat that failed', async () => {
    const { lambda, calls } = fakeLambda({ '2': 0.5 }, ['2']);
    const lines: string[] = [];
    const schedules = new LocalSchedules(lambda, (line) => lines.push(line));
    await schedules.start(settings, false);
    schedules.stop();
    expect(calls).toEqual([
      { ref: 'conductor', payload: { entry: 'periodic', task: 'conductor_heartbeat' }, version: '1' },
      { ref: 'conductor', payload: { entry: 'periodic', task: 'conductor_heartbeat' }, version: '2' },
    ]);
    expect(lines).toEqual(['conductor:2 heartbeat failed: boom']);
  });

  it('runs each periodic task through the live alias on its interval, and nothing once stopped', async () => {
    jest.useFakeTimers();
    const { lambda, calls } = fakeLambda();
    const schedules = new LocalSchedules(lambda, () => undefined);
    await schedules.start(settings, true);
    calls.length = 0;
    const schedule = periodicSchedule(settings);
    const longest = Math.max(...Object.values(schedule));
    await jest.advanceTimersByTimeAsync(longest * 1000);
    for (const [task, seconds] of Object.entries(schedule)) {
      const runs = calls.filter((c) => c.payload.task === task);
      expect(runs).toHaveLength(Math.floor(longest / seconds));
      if (task !== 'conductor_heartbeat') expect(runs.every((c) => c.ref.endsWith(':conductor:live'))).toBe(true);
    }
    schedules.stop();
    calls.length = 0;
    await jest.advanceTimersByTimeAsync(longest * 1000);
    expect(calls).toEqual([]);
  });

  it('keeps only the heartbeat when periodic tasks are off', async () => {
    jest.useFakeTimers();
    const { lambda, calls } = fakeLambda();
    const schedules = new LocalSchedules(lambda, () => undefined);
    await schedules.start(settings, false);
    await jest.advanceTimersByTimeAsync(600_000);
    schedules.stop();
    expect(new Set(calls.map((c) => c.payload.task))).toEqual(new Set(['conductor_heartbeat']));
    expect(calls).toHaveLength(11);
  });
});
