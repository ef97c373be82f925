/**
 * The decisions of `ironless upgrade`: steps and alias routing, which release to pin to, when a
 * shift is unhealthy, what start does with an upgrade in progress, and what a rollback undoes.
 */
import { RELEASE_MAPPING } from '../../../functions/common/releases';
import {
  UpgradeRefused,
  assessHealth,
  parseSteps,
  pinFor,
  resumePhase,
  rollbackPlan,
  routing,
  startDecision,
  versionsServing,
} from '../../../bin/upgrade/decisions';
import type { UpgradeState } from '../../../functions/common/upgrade-state';

const base: UpgradeState = {
  id: '20261125T081500Z',
  from: '2026.3',
  to: 'master',
  commit: 'abcdef012345',
  phase: 4,
  done: 3,
  step: 1,
  status: 'running',
  versions: { conductor: { old: '1', pinned: '2' }, api: { old: '1', pinned: '2' }, dbsync: { old: '1', pinned: '2' } },
};

const healthy = { next: { invocations: 100, errors: 0 }, current: { invocations: 900, errors: 0 }, dlqDepth: 0, deadConductors: [] };

describe('steps and routing', () => {
  it('takes increasing percentages that end at 100', () => {
    expect(parseSteps('10,50,100')).toEqual([10, 50, 100]);
    expect(parseSteps('100')).toEqual([100]);
    for (const bad of ['10,5,100', '10,50', '0,100', '10,abc,100', '50,150']) expect(() => parseSteps(bad)).toThrow(UpgradeRefused);
  });

  it('routes a share to the new version as AdditionalVersionWeights, all of it as FunctionVersion', () => {
    expect(routing('1', '2', 10)).toEqual({ FunctionVersion: '1', RoutingConfig: { AdditionalVersionWeights: { '2': 0.1 } } });
    expect(routing('1', '2', 50)).toEqual({ FunctionVersion: '1', RoutingConfig: { AdditionalVersionWeights: { '2': 0.5 } } });
    expect(routing('1', '2', 100)).toEqual({ FunctionVersion: '2', RoutingConfig: { AdditionalVersionWeights: {} } });
    expect(routing('3', '3', 10)).toEqual({ FunctionVersion: '3', RoutingConfig: { AdditionalVersionWeights: {} } });
  });

  it('lists the versions an alias serves, ignoring zero weights', () => {
    expect(versionsServing({ FunctionVersion: '1', RoutingConfig: { AdditionalVersionWeights: { '2': 0.1 } } })).toEqual(['1', '2']);
    expect(versionsServing({ FunctionVersion: '1', RoutingConfig: { AdditionalVersionWeights: { '2': 0 } } })).toEqual(['1']);
    expect(versionsServing({ FunctionVersion: '4' })).toEqual(['4']);
  });
});

describe('pinFor', () => {
  it('pins to the running release when the new mapping has its row', () => {
    expect(pinFor('2026.3', RELEASE_MAPPING)).toBe('2026.3');
    expect(pinFor(undefined, RELEASE_MAPPING, '2026.2')).toBe('2026.2');
  });

  it('refuses an unknown, unnamed or unreleased running release', () => {
    expect(() => pinFor(undefined, RELEASE_MAPPING)).toThrow(/--from RELEASE/);
    expect(() => pinFor('master', RELEASE_MAPPING)).toThrow(/unreleased code/);
    expect(() => pinFor('2024.1', RELEASE_MAPPING)).toThrow(/cannot be pinned to 2024.1/);
  });
});

describe('assessHealth', () => {
  it('goes on when nothing degraded', () => {
    expect(assessHealth(healthy)).toEqual([]);
  });

  it('stops on anything in a dead-letter queue and on a dead conductor', () => {
    expect(assessHealth({ ...healthy, dlqDepth: 2 })).toEqual([
      expect.stringMatching(/2 message\(s\) in the conductor dead-letter queues/),
    ]);
    expect(assessHealth({ ...healthy, deadConductors: ['conductor:2'] })).toEqual([expect.stringMatching(/conductor:2/)]);
  });

  it("stops when the new version's error rate is over the limit and over twice the old one's", () => {
    expect(assessHealth({ ...healthy, next: { invocations: 100, errors: 5 } })).toEqual([expect.stringMatching(/error rate 5.0%/)]);
    // The old version fails as often: the fleet's trouble, not the release's.
    expect(assessHealth({ ...healthy, next: { invocations: 100, errors: 5 }, current: { invocations: 100, errors: 4 } })).toEqual([]);
  });

  it('does not judge a rate on too few invocations', () => {
    expect(assessHealth({ ...healthy, next: { invocations: 3, errors: 2 } })).toEqual([]);
    expect(assessHealth({ ...healthy, next: { invocations: 30, errors: 2 } }, { maxErrorRate: 0.01, minInvocations: 20 })).toHaveLength(1);
  });

  it("stops on the API's 5xx rate while the API shifts", () => {
    expect(assessHealth({ ...healthy, api: { count: 1000, errors5xx: 0 } })).toEqual([]);
    expect(assessHealth({ ...healthy, api: { count: 1000, errors5xx: 30 } })).toEqual([expect.stringMatching(/API 5xx rate 3.0%/)]);
  });
});

describe('start and resume', () => {
  it('starts anew without an upgrade, after a rollback, or after a complete one to another commit', () => {
    expect(startDecision(undefined, 'master', 'abcdef0123456789')).toBe('new');
    expect(startDecision({ ...base, status: 'rolled-back' }, 'master', 'abcdef0123456789')).toBe('new');
    expect(startDecision({ ...base, status: 'complete' }, 'master', '999999999999aaaa')).toBe('new');
    expect(startDecision({ ...base, status: 'complete' }, 'master', 'abcdef0123456789')).toBe('done');
  });

  it('resumes the upgrade in progress with its own bundles and refuses others', () => {
    expect(startDecision({ ...base, status: 'stopped' }, 'master', 'abcdef0123456789')).toBe('resume');
    expect(() => startDecision({ ...base, status: 'stopped' }, 'master', '999999999999aaaa')).toThrow(
      /resume it with its bundles, or roll it back/,
    );
  });

  it('continues after the last completed phase', () => {
    expect(resumePhase(base)).toBe(4);
    expect(resumePhase({ ...base, done: 8 })).toBe(8);
  });
});

describe('rollbackPlan', () => {
  it('moves the API back first, then the conductor and dbsync, to the versions they had', () => {
    expect(rollbackPlan(base)).toEqual([
      { fn: 'api', to: '1' },
      { fn: 'conductor', to: '1' },
      { fn: 'dbsync', to: '1' },
    ]);
  });

  it('refuses once unpinned versions exist, when complete, and with no upgrade', () => {
    expect(() =>
      rollbackPlan({ ...base, phase: 6, versions: { ...base.versions, conductor: { old: '1', pinned: '2', unpinned: '3' } } }),
    ).toThrow(/Resume it instead/);
    expect(() => rollbackPlan({ ...base, done: 6, phase: 7 })).toThrow(UpgradeRefused);
    expect(() => rollbackPlan({ ...base, status: 'complete' })).toThrow(/complete/);
    expect(() => rollbackPlan(undefined)).toThrow(/No upgrade/);
  });

  it('has nothing to do after a rollback', () => {
    expect(rollbackPlan({ ...base, status: 'rolled-back' })).toEqual([]);
  });
});
