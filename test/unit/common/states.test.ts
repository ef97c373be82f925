import * as st from '../../../functions/common/states';

describe('the provisioning state machine', () => {
  it('has Ironic’s 32 states and 93 transitions, each once', () => {
    expect(new Set(st.ALL_STATES).size).toBe(32);
    expect(st.TRANSITIONS).toHaveLength(93);
    expect(new Set(st.TRANSITIONS.map(([from, event]) => `${from}/${event}`)).size).toBe(93);
  });

  it('only moves between known states', () => {
    for (const [from, , to] of st.TRANSITIONS) {
      expect(st.ALL_STATES).toContain(from);
      expect(st.ALL_STATES).toContain(to);
    }
  });

  it.each([
    [st.ENROLL, 'manage', st.VERIFYING, st.MANAGEABLE],
    [st.MANAGEABLE, 'provide', st.CLEANING, st.AVAILABLE],
    [st.AVAILABLE, 'deploy', st.DEPLOYING, st.ACTIVE],
    [st.DEPLOYING, 'done', st.ACTIVE, null],
    [st.DEPLOYING, 'fail', st.DEPLOYFAIL, st.ACTIVE],
    [st.ACTIVE, 'delete', st.DELETING, st.AVAILABLE],
    [st.DELETING, 'clean', st.CLEANING, st.AVAILABLE],
    [st.CLEANING, 'manage', st.MANAGEABLE, null],
    [st.VERIFYING, 'fail', st.ENROLL, null],
    [st.SERVICEFAIL, 'abort', st.ACTIVE, null],
  ] as const)('%s --%s--> %s (target %s)', (from, event, to, target) => {
    expect(st.transition(from, event)).toEqual({ provisionState: to, targetProvisionState: target });
  });

  it('keeps a manual clean (target manageable) aimed at manageable through the clean states, until it leaves them', () => {
    const manual = (from: string, event: st.ProvisionEvent) => st.transition(from, event, st.MANAGEABLE)?.targetProvisionState;
    expect(manual(st.MANAGEABLE, 'clean')).toBe(st.MANAGEABLE);
    expect(manual(st.CLEANING, 'wait')).toBe(st.MANAGEABLE);
    expect(manual(st.CLEANWAIT, 'hold')).toBe(st.MANAGEABLE);
    expect(manual(st.CLEANWAIT, 'fail')).toBe(st.MANAGEABLE);
    expect(manual(st.CLEANING, 'manage')).toBeNull();
    expect(manual(st.CLEANFAIL, 'manage')).toBeNull();
    expect(manual(st.MANAGEABLE, 'inspect')).toBe(st.MANAGEABLE);
  });

  it('has no row for verbs a state does not allow', () => {
    expect(st.transition(st.ENROLL, 'deploy')).toBeUndefined();
    expect(st.isAllowed(st.ACTIVE, 'provide')).toBe(false);
  });

  it('treats every stuck state as failable', () => {
    for (const state of st.STUCK_STATES_TREATED_AS_FAIL) expect(st.isAllowed(state, 'fail')).toBe(true);
  });

  it('maps API verbs to events the table knows', () => {
    const events = new Set(st.TRANSITIONS.map(([, event]) => event));
    for (const event of Object.values(st.VERBS)) expect(events.has(event as st.ProvisionEvent)).toBe(true);
  });
});
