/** The upgrade's state in the conductor function's tags: a round trip, Lambda's tag limits, and refusing what is not a state. */
import {
  CorruptStateError,
  TAGS,
  type UpgradeState,
  decodeState,
  encodeState,
  inProgress,
  tagValue,
} from '../../../functions/common/upgrade-state';

const state: UpgradeState = {
  id: '20261125T081500Z',
  from: '2026.3',
  to: 'master',
  commit: 'abcdef012345',
  phase: 6,
  done: 5,
  step: 2,
  status: 'stopped',
  versions: { conductor: { old: '1', pinned: '2', unpinned: '3' }, api: { old: '1', pinned: '2' }, dbsync: {} },
  message: 'stopped in phase 6: conductor at 50 percent on version 3: 2 messages in the conductor dead-letter queues',
};

describe('upgrade state tags', () => {
  it('round-trips through the tags', () => {
    expect(decodeState(encodeState(state))).toEqual(state);
    const { message: _message, ...quiet } = state;
    expect(decodeState(encodeState(quiet))).toEqual(quiet);
    expect(decodeState(encodeState({ ...state, oldUntil: 1795600000 }))).toEqual({ ...state, oldUntil: 1795600000 });
  });

  it('keeps every value within what Lambda tags allow', () => {
    for (const value of Object.values(encodeState({ ...state, message: `${'x'.repeat(300)} (with "quotes", #hashes & stars*)` }))) {
      expect(value.length).toBeLessThanOrEqual(256);
      expect(value).toMatch(/^[\p{L}\p{Z}\p{N}_.:/=+\-@]*$/u);
    }
    expect(tagValue('a  b\n"c"')).toBe('a b c');
    expect(tagValue('10% on version 2 (of 3)')).toBe('10 percent on version 2 of 3');
  });

  it('reads no upgrade from a function without the tag, and refuses a damaged tag', () => {
    expect(decodeState({ [TAGS.release]: '2026.3' })).toBeUndefined();
    expect(() => decodeState({ [TAGS.upgrade]: 'id=1 from=a to=b commit=c phase=x done=1 step=0 status=running' })).toThrow(
      CorruptStateError,
    );
    expect(() => decodeState({ [TAGS.upgrade]: 'id=1 from=a to=b commit=c phase=1 done=1 step=0 status=dancing' })).toThrow(
      /unknown status/,
    );
    expect(() => decodeState({ [TAGS.upgrade]: 'from=a' })).toThrow(/lacks "id"/);
  });

  it('holds the deployment while running, stopped or rolling back', () => {
    expect(inProgress(state)).toBe(true);
    expect(inProgress({ ...state, status: 'running' })).toBe(true);
    expect(inProgress({ ...state, status: 'complete' })).toBe(false);
    expect(inProgress({ ...state, status: 'rolled-back' })).toBe(false);
    expect(inProgress(undefined)).toBe(false);
  });
});
