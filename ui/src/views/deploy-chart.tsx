/**
 * Deploys finished and failed over the last hour, in 5-minute bars. The census (census-store)
 * says which nodes changed state in the hour; the history of at most HISTORY_READS of them (the
 * most recent) adds the failures a retry has hidden since. A hand-drawn SVG: twelve bars need no
 * charting library.
 */
import { apiMinor, get } from '../api';
import { clock } from '../format';
import { usePoll } from '../hooks';
import type { HistoryEvent } from '../steps';
import { BUCKETS, type Bucket, HISTORY_READS, deployBuckets, historyCandidates } from '../throughput';
import { useCensus } from './census-store';

const W = 480;
const H = 120;
const PAD = 24;

async function histories(uuids: readonly string[]): Promise<Map<string, HistoryEvent[]>> {
  const out = new Map<string, HistoryEvent[]>();
  if (apiMinor() < 78) return out;
  const queue = [...uuids];
  const worker = async () => {
    for (let uuid = queue.shift(); uuid !== undefined; uuid = queue.shift()) {
      const body = await get<{ history: HistoryEvent[] }>(`v1/nodes/${uuid}/history?detail=true&limit=1000`).catch(() => undefined);
      if (body) out.set(uuid, body.history);
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  return out;
}

function Chart({ buckets }: { buckets: readonly Bucket[] }) {
  const max = Math.max(1, ...buckets.map((b) => b.deployed + b.failed));
  const bw = (W - PAD) / BUCKETS;
  const y = (n: number) => ((H - PAD) * n) / max;
  const deployed = buckets.reduce((s, b) => s + b.deployed, 0);
  const failed = buckets.reduce((s, b) => s + b.failed, 0);
  return (
    <svg
      class="chart"
      viewBox={`0 0 ${W} ${H}`}
      role="img"
      aria-label={`Last hour: ${deployed} deploys finished, ${failed} failed`}
      preserveAspectRatio="none"
    >
      <line x1={PAD} y1={H - PAD} x2={W} y2={H - PAD} class="axis" />
      <text x={PAD - 4} y={10} class="tick" text-anchor="end">
        {max}
      </text>
      <text x={PAD - 4} y={H - PAD} class="tick" text-anchor="end">
        0
      </text>
      {buckets.map((b, i) => {
        const x = PAD + i * bw + 2;
        const hd = y(b.deployed);
        const hf = y(b.failed);
        return (
          <g key={b.start}>
            <rect x={x} y={H - PAD - hd} width={bw - 4} height={hd} class="ok" />
            <rect x={x} y={H - PAD - hd - hf} width={bw - 4} height={hf} class="failed" />
            {i % 3 === 0 ? (
              <text x={x} y={H - 8} class="tick">
                {clock(new Date(b.start).toISOString()).slice(11, 16)}
              </text>
            ) : null}
          </g>
        );
      })}
    </svg>
  );
}

export function DeployChart() {
  const { census } = useCensus();
  const candidates = census ? historyCandidates(census.recent) : [];
  const key = candidates.map((c) => `${c.uuid}@${String(c.provision_updated_at)}`).join(',');
  const read = usePoll(
    () => histories(candidates.map((c) => c.uuid)),
    () => 60_000,
    [key],
  );
  const buckets = census ? deployBuckets(census.recent, read.data ?? new Map(), Date.now()) : [];
  return (
    <section aria-labelledby="chart-title">
      <h2 id="chart-title">Deploys in the last hour</h2>
      {census ? (
        <div class="panel chart-panel">
          <Chart buckets={buckets} />
          <p class="legend">
            <span class="key ok" /> finished <span class="key failed" /> failed
            <span class="hint">
              {' '}
              · from {census.recent.length} node{census.recent.length === 1 ? '' : 's'} that changed state in the hour, with the history of{' '}
              {Math.min(candidates.length, HISTORY_READS)}
            </span>
          </p>
          <table class="visually-hidden">
            <caption>Deploys per five minutes</caption>
            <thead>
              <tr>
                <th scope="col">From</th>
                <th scope="col">Finished</th>
                <th scope="col">Failed</th>
              </tr>
            </thead>
            <tbody>
              {buckets.map((b) => (
                <tr key={b.start}>
                  <td>{clock(new Date(b.start).toISOString())}</td>
                  <td>{b.deployed}</td>
                  <td>{b.failed}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p role="status">Counting the fleet…</p>
      )}
    </section>
  );
}
