/** `ironless build`: the Lambda bundles alone, of this checkout or of a past release. */
import type { Command } from 'commander';
import { buildLocal } from '../../local/stack';
import { buildRelease, checkoutManifest, releaseBuildDir, writeManifest } from '../build/release';

export function registerBuild(program: Command): void {
  program
    .command('build')
    .description('bundle the Lambda functions (the web console inside the ui function) and the local runtime, as they are deployed')
    .option('--out <dir>', 'output folder (default dist/build, or dist/releases/<release>-<commit> with --release)')
    .option('--release <name>', 'build a past release from the commit it was cut from (e.g. 2026.3), to upgrade from it')
    .action(async (opts: { out?: string; release?: string }) => {
      const started = Date.now();
      if (opts.release !== undefined) {
        const out = opts.out ?? releaseBuildDir(opts.release);
        try {
          const manifest = await buildRelease(opts.release, out, (line) => console.log(line));
          console.log(
            `Release ${manifest.release} (commit ${manifest.commit.slice(0, 12)}) bundled in ${out}/ in ${Date.now() - started} ms`,
          );
        } catch (err) {
          console.error(`Could not build release ${opts.release}: ${(err as Error).message}`);
          process.exit(1);
        }
        return;
      }
      const out = opts.out ?? 'dist/build';
      await buildLocal(out);
      const manifest = writeManifest(out, checkoutManifest());
      console.log(
        `Bundles of ${manifest.release} (commit ${manifest.commit.slice(0, 12)}${manifest.dirty ? ', with local changes' : ''}) written to ${out}/ in ${Date.now() - started} ms`,
      );
    });
}
