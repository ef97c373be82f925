/** `ironless local`: the whole stack on this machine. */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { readBuildManifest } from '../../local/build-manifest';
import { readFaultSpec } from '../../local/faults';
import { LocalStack } from '../../local/stack';
import { readTraitRulesFile } from '../../lib/trait-based-networking';
import { port, positiveInteger } from './options';

interface LocalOptions {
  port: number;
  data: string;
  inMemory?: boolean;
  quiet?: boolean;
  fleet: number;
  fleetPort: number;
  auth: 'noauth' | 'http_basic';
  htpasswd?: string;
  faults?: string;
  traitRules?: string;
  bundles?: string;
  agentApiCaFile?: string;
}

export function registerLocal(program: Command): void {
  program
    .command('local')
    .description('run the whole stack on this machine (DynamoDB Local, fauxqs, local Step Functions and Lambda)')
    .option('--port <port>', 'API port', port, 6385)
    .option('--data <dir>', 'keep data in this folder', '.ironless')
    .option('--in-memory', 'keep nothing: data lives in memory and is gone on exit')
    .option('--quiet', 'print only the ready line and errors')
    .option(
      '--fleet <n>',
      'virtual machines with Redfish BMCs to start and enroll (0 = none)',
      (v) => (v === '0' ? 0 : positiveInteger(v)),
      3,
    )
    .option('--fleet-port <port>', 'port of the virtual BMCs', port, 8000)
    .addOption(new Option('--auth <strategy>', "Ironic's auth_strategy").choices(['noauth', 'http_basic']).default('noauth'))
    .option('--htpasswd <file>', 'htpasswd file (bcrypt entries) for --auth http_basic')
    .option(
      '--faults <file>',
      'inject faults: DynamoDB throttling/errors/latency, Lambda crashes/timeouts, Step Functions errors (JSON, see README)',
    )
    .option(
      '--trait-rules <file>',
      "trait based networking: Ironic's trait_based_networking.yaml (or JSON); VIF attach on `flat` follows it",
    )
    .option(
      '--agent-api-ca-file <pem>',
      "Ironic's [agent]api_ca_file: the CA certificate(s) of the API's TLS certificate, put on the agent ISOs the conductor builds",
    )
    .option('--bundles <dir>', 'run these bundles (from `ironless build`, e.g. a past release) instead of building this checkout')
    .action(async (opts: LocalOptions) => {
      const started = Date.now();
      const say = (line: string) => {
        if (!opts.quiet) console.log(line);
      };
      if (opts.auth === 'http_basic' && !opts.htpasswd) {
        console.error('--auth http_basic needs --htpasswd FILE (lines of user:bcrypt-digest, e.g. from htpasswd -nB user)');
        process.exit(2);
      }
      if (opts.bundles !== undefined) {
        if (!existsSync(join(opts.bundles, 'runtime.mjs'))) {
          console.error(`${opts.bundles} holds no bundles: build them with \`npx ironless build --out ${opts.bundles}\` (or --release R)`);
          process.exit(2);
        }
        const manifest = readBuildManifest(opts.bundles);
        say(
          manifest
            ? `Serving release ${manifest.release} (commit ${manifest.commit.slice(0, 12)}) from ${opts.bundles}`
            : `Serving the bundles in ${opts.bundles} (no manifest.json: release unknown, taken as master)`,
        );
      }
      let stack: LocalStack;
      try {
        const faults = opts.faults === undefined ? undefined : readFaultSpec(opts.faults);
        stack = new LocalStack({
          ...(faults ? { faults } : {}),
          port: opts.port,
          settings: {
            authStrategy: opts.auth,
            ...(opts.traitRules ? { traitBasedNetworking: { rules: readTraitRulesFile(opts.traitRules) } } : {}),
            ...(opts.agentApiCaFile ? { agentApiCaFile: opts.agentApiCaFile } : {}),
          },
          ...(opts.htpasswd ? { htpasswdFile: opts.htpasswd } : {}),
          dataDir: opts.data,
          ...(opts.bundles ? { buildDir: resolve(opts.bundles) } : {}),
          inMemory: opts.inMemory === true,
          // The fleet's agent ISO is built for in-band inspection too (`ipa-inspection-callback-url`),
          // and its network has a PXE environment serving that ramdisk (unmanaged inspection).
          fleet: { count: opts.fleet, port: opts.fleetPort, inspection: true, pxe: true },
          log: say,
        });
      } catch (err) {
        console.error(`Could not start the local stack: ${(err as Error).message}`);
        process.exit(2);
      }
      let stopping = false;
      const stop = async (signal: string) => {
        if (stopping) return;
        stopping = true;
        say(`\n${signal}: stopping Ironless…`);
        await stack.stop();
        say('Stopped.');
        process.exit(0);
      };
      process.on('SIGINT', () => void stop('SIGINT'));
      process.on('SIGTERM', () => void stop('SIGTERM'));
      try {
        await stack.start();
      } catch (err) {
        console.error(`Could not start the local stack: ${(err as Error).message}`);
        if ((err as { code?: string }).code === 'EADDRINUSE')
          console.error(`Port ${opts.port} is in use: stop what uses it, or pass --port.`);
        process.exit(1);
      }
      const where = opts.inMemory ? 'data in memory' : `data in ${opts.data}/, function logs in ${opts.data}/logs/`;
      console.log(`Ironless is ready at ${stack.url} (${((Date.now() - started) / 1000).toFixed(1)} s; ${where}). Ctrl-C stops it.`);
      // --quiet prints the ready line alone (scripts wait for it); a release without the console has none.
      if (stack.lambda.functionNames().includes('ui')) say(`  Web console: ${stack.url}/ui/`);
      if (opts.auth === 'http_basic') say(`  export OS_AUTH_TYPE=http_basic OS_ENDPOINT=${stack.url} OS_USERNAME=… OS_PASSWORD=…`);
      else say(`  export OS_AUTH_TYPE=none OS_ENDPOINT=${stack.url}`);
      say('  openstack baremetal node create --driver fake-hardware --name node-0');
      if (opts.faults) say(`  faults from ${opts.faults} are being injected; every 30 s a line says how many`);
      if (opts.faults)
        setInterval(() => {
          const { dynamodb, lambda, stepFunctions } = stack.faults.injected();
          say(
            `faults injected: DynamoDB ${JSON.stringify(dynamodb)}, Lambda ${JSON.stringify(lambda)}, Step Functions ${JSON.stringify(stepFunctions)}`,
          );
        }, 30_000).unref();
    });
}
