/** `ironless build`: the Lambda bundles alone. */
import type { Command } from 'commander';
import { buildLocal } from '../../local/stack';

export function registerBuild(program: Command): void {
  program
    .command('build')
    .description('bundle the Lambda functions (the web console inside the ui function) and the local runtime, as they are deployed')
    .option('--out <dir>', 'output folder', 'dist/build')
    .action(async (opts: { out: string }) => {
      const started = Date.now();
      await buildLocal(opts.out);
      console.log(`Bundles written to ${opts.out}/ in ${Date.now() - started} ms`);
    });
}
