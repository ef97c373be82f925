/**
 * The fleet's counts, kept for the tab's life (leaving the fleet view and coming back does not
 * count again), recounted on a schedule that stretches with the fleet's size (census.ts).
 */
import { useEffect, useState } from 'preact/hooks';
import { apiMinor, get } from '../api';
import { CENSUS_PAGE, type Census, type CensusNode, DIMENSIONS, type Dimension, censusFields, nextCensusDelay, runCensus } from '../census';

interface CensusState {
  readonly census: Census | undefined;
  readonly running: boolean;
  readonly error: Error | undefined;
  readonly nextAt: number | undefined;
}

let state: CensusState = { census: undefined, running: false, error: undefined, nextAt: undefined };
const listeners = new Set<(s: CensusState) => void>();
let timer: ReturnType<typeof setTimeout> | undefined;
let generation = 0;

function publish(next: Partial<CensusState>): void {
  state = { ...state, ...next };
  for (const listener of listeners) listener(state);
}

/** Count now (a running census is replaced). */
export function recount(): void {
  if (timer) clearTimeout(timer);
  const mine = ++generation;
  const minor = apiMinor();
  const fields = censusFields(minor).join(',');
  const dimensions = DIMENSIONS.filter((d) => d.minMinor <= minor).map((d) => d.key) as Dimension[];
  publish({ running: true, error: undefined });
  runCensus(
    async (marker) => {
      const body = await get<{ nodes: CensusNode[]; next?: string }>(
        `v1/nodes?fields=${fields}&limit=${CENSUS_PAGE}${marker ? `&marker=${marker}` : ''}`,
      );
      return { nodes: body.nodes, more: typeof body.next === 'string' };
    },
    dimensions,
    { progress: (census) => mine === generation && publish({ census }), cancelled: () => mine !== generation },
  ).then(
    (census) => {
      if (!census || mine !== generation) return;
      const delay = nextCensusDelay(census.total, census.finishedAt - census.startedAt);
      publish({ census, running: false, nextAt: Date.now() + delay });
      timer = setTimeout(() => listeners.size > 0 && recount(), delay);
    },
    (error: Error) => {
      if (mine !== generation) return;
      publish({ running: false, error, nextAt: Date.now() + 30_000 });
      timer = setTimeout(() => listeners.size > 0 && recount(), 30_000);
    },
  );
}

/** The census as it stands; starts one when none ran yet or the last is due. */
export function useCensus(): CensusState {
  const [current, setCurrent] = useState(state);
  useEffect(() => {
    listeners.add(setCurrent);
    if (!state.running && (state.census === undefined || (state.nextAt !== undefined && state.nextAt <= Date.now()))) recount();
    return () => void listeners.delete(setCurrent);
  }, []);
  return current;
}
