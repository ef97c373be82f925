import { BUCKETS, deployBuckets, historyCandidates } from '../../../ui/src/throughput';

const now = Date.parse('2026-11-25T10:00:00Z');

describe('deployBuckets', () => {
  it('counts finished deploys by when the node became active, failures from history or from the state', () => {
    const recent = [
      { uuid: 'a', provision_state: 'active', provision_updated_at: '2026-11-25T09:58:00Z' },
      { uuid: 'b', provision_state: 'active', provision_updated_at: '2026-11-25T09:01:00Z' },
      // Failed, then deployed again: its history has the failure.
      { uuid: 'c', provision_state: 'active', provision_updated_at: '2026-11-25T09:57:00Z' },
      { uuid: 'd', provision_state: 'deploy failed', provision_updated_at: '2026-11-25T09:56:00Z' },
      { uuid: 'e', provision_state: 'active', provision_updated_at: '2026-11-25T08:00:00Z' },
    ];
    const histories = new Map([
      [
        'c',
        [
          { created_at: '2026-11-25T09:31:00Z', severity: 'ERROR', event_type: 'deploying', event: 'failed' },
          { created_at: '2026-11-25T09:32:00Z', severity: 'ERROR', event_type: 'cleaning', event: 'not a deploy' },
        ],
      ],
    ]);
    const buckets = deployBuckets(recent, histories, now);
    expect(buckets).toHaveLength(BUCKETS);
    expect(buckets[0]?.start).toBe(now - 60 * 60 * 1000);
    expect(buckets.reduce((s, b) => s + b.deployed, 0)).toBe(3);
    expect(buckets[BUCKETS - 1]).toMatchObject({ deployed: 2, failed: 1 });
    expect(buckets[6]).toMatchObject({ failed: 1 });
    expect(buckets[0]).toMatchObject({ deployed: 1 });
  });
});

describe('historyCandidates', () => {
  it('picks deployed and failed nodes, newest first', () => {
    const picked = historyCandidates([
      { uuid: 'old', provision_state: 'active', provision_updated_at: '2026-11-25T09:00:00Z' },
      { uuid: 'cleaning', provision_state: 'cleaning', provision_updated_at: '2026-11-25T09:59:00Z' },
      { uuid: 'new', provision_state: 'deploy failed', provision_updated_at: '2026-11-25T09:50:00Z' },
    ]);
    expect(picked.map((n) => n.uuid)).toEqual(['new', 'old']);
  });
});
