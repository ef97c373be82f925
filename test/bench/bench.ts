/** What a benchmark module exports, and measuring helpers they share. */

export interface BenchContext {
  /** Bundles built for this run (pass to LocalStack's buildDir). */
  readonly buildDir: string;
  readonly log: (line: string) => void;
}

export interface Bench {
  readonly name: string;
  run(ctx: BenchContext): Promise<Record<string, unknown>>;
}

/** Latency percentiles (ms) and throughput of `total` calls of `fn` at a concurrency. */
export async function measure(
  total: number,
  concurrency: number,
  fn: (i: number) => Promise<void>,
): Promise<{ requests: number; concurrency: number; perSecond: number; p50Ms: number; p99Ms: number }> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (;;) {
        const i = next++;
        if (i >= total) return;
        const t = performance.now();
        await fn(i);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => Number((latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0).toFixed(2));
  return { requests: total, concurrency, perSecond: Number((total / seconds).toFixed(1)), p50Ms: pct(50), p99Ms: pct(99) };
}
