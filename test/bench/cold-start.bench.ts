/**
 * Each function's bundle: its size, and its cold-start init time (importing it in a fresh Node 22
 * process with its published environment, the median of `BENCH_COLD_RUNS` runs, default 9). The
 * issue's target: the API ≤ 150 ms, the others below it, on the 2-core machine CI runs on.
 */
import { FUNCTIONS, type FunctionName } from '../../lib/bundling';
import { LambdaHost } from '../../local/lambda-host';
import { LocalStack } from '../../local/stack';
import type { Bench } from './bench';
import { coldStarts } from './cold-start';

const RUNS = Number(process.env.BENCH_COLD_RUNS ?? 9);

const bench: Bench = {
  name: 'cold-start',
  async run({ buildDir, log }) {
    const names = Object.keys(FUNCTIONS) as FunctionName[];
    // The conductor checks its service identity in DynamoDB as it starts: the bundles load with the
    // environment of a local stack's functions, whose DynamoDB Local answers.
    const stack = await new LocalStack({ port: 0, inMemory: true, buildDir, schedules: false }).start();
    log(`${names.length} bundles, ${RUNS} fresh processes each, one at a time`);
    let bundles;
    try {
      bundles = await coldStarts(buildDir, names, RUNS, stack.functionEnvironment(LambdaHost.arn('conductor', 'live')));
    } finally {
      await stack.stop();
    }
    return {
      runs: RUNS,
      bundles,
      targets: { apiInitMs: 150 },
      note: 'initMs: wall time of import() in a fresh process (Lambda Init less the runtime start), median; initCpuMs: its CPU time, less moved by other load on the machine. Sizes in bytes: initBytes is what a cold start loads (the entry and the chunks it imports statically), totalBytes adds the chunks loaded when first needed.',
    };
  },
};

export default bench;
