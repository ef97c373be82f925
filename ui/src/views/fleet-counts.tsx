/** The fleet's counts per dimension, as bars and numbers; a row with an API filter selects it. */
import { type BarRow, BarTable, ErrorNote } from '../components';
import { type Census, DIMENSIONS, type Dimension } from '../census';
import { ago, count } from '../format';
import { useNow } from '../hooks';
import { PROVISION_STATES, type Tone, powerTone, provisionTone } from '../states';
import { recount, useCensus } from './census-store';

/** The list filter (query parameter and value) a count's row stands for; undefined: the API has none. */
export function filterFor(dimension: Dimension, bucket: string): [string, string] | undefined {
  switch (dimension) {
    case 'provision_state':
      return ['provision_state', bucket];
    case 'maintenance':
      return ['maintenance', bucket === 'yes' ? 'true' : 'false'];
    case 'fault':
      return bucket === '(none)' ? undefined : ['fault', bucket];
    case 'shard':
      return bucket === '(none)' ? ['sharded', 'false'] : ['shard', bucket];
    case 'conductor_group':
      return ['conductor_group', bucket === '(none)' ? '' : bucket];
    case 'owner':
      return bucket === '(none)' ? undefined : ['owner', bucket];
    case 'power_state':
      return undefined;
  }
}

function toneFor(dimension: Dimension, bucket: string): Tone | 'neutral' {
  if (dimension === 'provision_state') return provisionTone(bucket);
  if (dimension === 'power_state') return powerTone(bucket === '(none)' ? null : bucket);
  if (dimension === 'maintenance') return bucket === 'yes' ? 'hold' : 'neutral';
  if (dimension === 'fault') return bucket === '(none)' ? 'neutral' : 'failed';
  return 'neutral';
}

const LABELS: Partial<Record<Dimension, Record<string, string>>> = {
  conductor_group: { '(none)': '(default group)' },
  power_state: { '(none)': 'unknown' },
};

function rows(
  census: Census,
  dimension: Dimension,
  query: Readonly<Record<string, string>>,
  select: (q: [string, string]) => void,
): BarRow[] {
  const entries = [...census.counts[dimension].entries()];
  if (dimension === 'provision_state') entries.sort(([a], [b]) => PROVISION_STATES.indexOf(a) - PROVISION_STATES.indexOf(b));
  else entries.sort(([a, x], [b, y]) => y - x || a.localeCompare(b));
  return entries.map(([bucket, value]) => {
    const filter = filterFor(dimension, bucket);
    return {
      key: bucket,
      label: LABELS[dimension]?.[bucket] ?? bucket,
      value,
      tone: toneFor(dimension, bucket),
      selected: filter !== undefined && query[filter[0]] === filter[1],
      ...(filter ? { onSelect: () => select(filter) } : {}),
    };
  });
}

export function FleetCounts({ query, select }: { query: Readonly<Record<string, string>>; select: (q: [string, string]) => void }) {
  const { census, running, error } = useCensus();
  const now = useNow(5000);
  const present = DIMENSIONS.filter((d) => census?.counts[d.key].size);
  return (
    <section aria-labelledby="counts-title" class="counts">
      <div class="section-head">
        <h2 id="counts-title">Counts</h2>
        <p class="hint" role="status">
          {census
            ? `${count(census.total)} nodes${census.partial ? ' so far' : ''} · counted ${ago(new Date(census.finishedAt).toISOString(), Math.max(now, census.finishedAt))} in ${census.requests} request${census.requests === 1 ? '' : 's'}`
            : running
              ? 'Counting…'
              : ''}
        </p>
        <button type="button" class="quiet" onClick={recount} disabled={running}>
          {running ? 'Counting…' : 'Count now'}
        </button>
      </div>
      <ErrorNote error={error} prefix="Counting failed" />
      {census && census.total > 0 ? (
        <>
          <StateStrip census={census} />
          <div class="count-grid">
            {present.map((d) => (
              <BarTable
                key={d.key}
                id={`count-${d.key}`}
                title={d.label}
                total={census.total}
                rows={rows(census, d.key, query, select)}
                {...(d.key === 'power_state' ? { note: 'Counted only: the API cannot filter by power state.' } : {})}
              />
            ))}
          </div>
        </>
      ) : census ? (
        <p>
          No nodes yet. <a href="#/enroll">Enroll one</a>.
        </p>
      ) : null}
    </section>
  );
}

/** The whole fleet by provision state in one stacked bar (the legend is the table below it). */
function StateStrip({ census }: { census: Census }) {
  const entries = [...census.counts.provision_state.entries()].sort(
    ([a], [b]) => PROVISION_STATES.indexOf(a) - PROVISION_STATES.indexOf(b),
  );
  return (
    <div class="strip" role="img" aria-label={entries.map(([s, n]) => `${s}: ${n}`).join(', ')}>
      {entries.map(([state, n]) => (
        <span key={state} class={`tone-${provisionTone(state)}`} style={{ flexGrow: n }} title={`${state}: ${count(n)}`} />
      ))}
    </div>
  );
}
