#!/usr/bin/env -S node --disable-warning=ExperimentalWarning --import tsx
/**
 * The operator CLI. Each command lives in `bin/commands/`; this file only registers them.
 */
import { Command } from 'commander';
import { registerBuild } from './commands/build';
import { registerFleet } from './commands/fleet';
import { registerDbsync } from './commands/dbsync';
import { registerLocal } from './commands/local';
import { registerUpgrade } from './commands/upgrade';

const program = new Command()
  .name('ironless')
  .description('Ironless: bare-metal provisioning with the OpenStack Ironic API, serverless on AWS');

registerLocal(program);
registerBuild(program);
registerFleet(program);
registerDbsync(program);
registerUpgrade(program);

await program.parseAsync(process.argv);
