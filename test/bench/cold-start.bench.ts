/**
 * Each function's bundle: its size, and its cold-start init time (importing it in a fresh Node 22
 * process with its published environment, the median of `BENCH_COLD_RUNS` runs, default 9). The
 * issue's target: the API ≤ 150 ms, the others below it, on the 2-core machine CI runs on.
 */
import { FUNCTIONS, type FunctionName } from '../../lib/bundling';
import type { Bench } from './bench';
import { coldStarts } from './cold-start';

const RUNS = Number(process.env.BENCH_COLD_RUNS ?? 9);

const bench: Bench = {
  name: 'cold-start',
  async run({ buildDir, log }) {
    const names = Object.keys(FUNCTIONS) as FunctionName[];
    log(`${names.length} bundles, ${RUNS} fresh processes each, one at a time`);
    return {
      runs: RUNS,
      bundles: await coldStarts(buildDir, names, RUNS),
      targets: { apiInitMs: 150 },
      note: 'initMs: wall time of import() in a fresh process (Lambda Init less the runtime start), median; initCpuMs: its CPU time, less moved by other load on the machine. Sizes in bytes: entryBytes is what a cold start parses at once, totalBytes adds the chunks loaded when first needed.',
    };
  },
};

export default bench;
