/**
 * The differential compat suite: the corpus (corpus.ts) against a real Ironic 21.4 and against
 * Ironless, compared after normalization. It fails on any difference that is not one of the
 * documented ones (known-differences.ts, README "Known differences from Ironic 21.4"), when a
 * documented difference no longer occurs (the table must stay honest), and when the match rate
 * drops. It writes test/compat/differential/report.md. Needs Debian's ironic-api and
 * ironic-conductor (.ci/run installs them); not part of `npm test`.
 */
import { KNOWN_DIFFERENCES } from './known-differences';
import { type SessionResult, runSession, writeReport } from './session';

/** The share of requests answered identically, at least (measured: see report.md). */
const MIN_MATCH_RATE = 0.95;

let result: SessionResult;

beforeAll(async () => {
  // A port of its own (and port + 1000 for Ironic's JSON-RPC), away from other suites' choices.
  const port = 21000 + (process.pid % 4000);
  result = await runSession({ ironicPort: port, buildDir: process.env.IRONLESS_BUILD_DIR as string });
  const report = await writeReport(result);
  console.log(report.split('\n').slice(0, 12).join('\n'));
}, 600_000);

it('finds no difference from Ironic 21.4 other than the documented ones', () => {
  const text = result.unexplained.map(
    (d) => `${d.step} — ${d.request} ${d.aspect}: ironic ${JSON.stringify(d.ironic)}, ironless ${JSON.stringify(d.ironless)}`,
  );
  expect(text).toEqual([]);
});

it('still sees every documented difference (so the table stays true)', () => {
  const unseen = KNOWN_DIFFERENCES.filter((k) => !k.occasional && !result.explained.has(k)).map((k) => k.id);
  expect(unseen).toEqual([]);
});

it(`answers at least ${MIN_MATCH_RATE * 100}% of the corpus exactly as Ironic does`, () => {
  expect(result.steps).toBeGreaterThan(250);
  expect(result.matchRate).toBeGreaterThanOrEqual(MIN_MATCH_RATE);
});
