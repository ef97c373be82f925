/**
 * `ironless upgrade` and Ironic's `[agent]api_ca_file`: a conductor deployed with the CA in its
 * code (AGENT_API_CA_FILE) is not upgraded to bundles without it, which could not start; nor one
 * with isolinux in its code (ISOLINUX_BIN, LDLINUX_C32, ISOLINUX_CONFIG_TEMPLATE, issue 21).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UpgradeRefused } from '../../../bin/upgrade/decisions';
import { checkConductorBundle } from '../../../bin/upgrade/deployment';

const bundle = join(mkdtempSync(join(tmpdir(), 'bundles-')), 'conductor');
mkdirSync(bundle);
writeFileSync(join(bundle, 'index.mjs'), 'export const handler = () => {};\n');

it('refuses bundles without the CA the running conductor reads, saying where to put it', () => {
  const env = { AGENT_API_CA_FILE: 'agent-api-ca.crt', CONDUCTOR_QUEUES: '{}' };
  expect(() => checkConductorBundle(env, bundle)).toThrow(UpgradeRefused);
  expect(() => checkConductorBundle(env, bundle)).toThrow(
    `The running conductor puts the agent API CA (settings.agentApiCaFile) on the agent ISOs it builds, from agent-api-ca.crt in its code, which ${bundle} lacks: copy the same PEM file to ${join(bundle, 'agent-api-ca.crt')} and run the upgrade again`,
  );
  writeFileSync(join(bundle, 'agent-api-ca.crt'), '-----BEGIN CERTIFICATE-----\n');
  expect(() => checkConductorBundle(env, bundle)).not.toThrow();
});

it('refuses bundles without the isolinux files the running conductor builds BIOS ISOs with', () => {
  const env = { ISOLINUX_BIN: 'isolinux/isolinux.bin', LDLINUX_C32: 'isolinux/ldlinux.c32', CONDUCTOR_QUEUES: '{}' };
  expect(() => checkConductorBundle(env, bundle)).toThrow(
    `The running conductor builds BIOS agent ISOs with isolinux/isolinux.bin in its code (settings.isolinuxBin), which ${bundle} lacks: copy the same file (Debian's is /usr/lib/ISOLINUX/isolinux.bin) to ${join(bundle, 'isolinux/isolinux.bin')} and run the upgrade again`,
  );
  mkdirSync(join(bundle, 'isolinux'));
  writeFileSync(join(bundle, 'isolinux/isolinux.bin'), 'ISOLINUX 6.04');
  expect(() => checkConductorBundle(env, bundle)).toThrow('with isolinux/ldlinux.c32 in its code (settings.ldlinuxC32)');
  writeFileSync(join(bundle, 'isolinux/ldlinux.c32'), 'ELF');
  expect(() => checkConductorBundle(env, bundle)).not.toThrow();
});

it('refuses bundles without the isolinux_config_template the running conductor renders', () => {
  const env = { ISOLINUX_CONFIG_TEMPLATE: 'isolinux/isolinux_config.template', CONDUCTOR_QUEUES: '{}' };
  expect(() => checkConductorBundle(env, bundle)).toThrow(
    `The running conductor builds BIOS agent ISOs with isolinux/isolinux_config.template in its code (settings.isolinuxConfigTemplate), which ${bundle} lacks: copy the same file (the template the stack was synthesized with) to ${join(bundle, 'isolinux/isolinux_config.template')} and run the upgrade again`,
  );
  writeFileSync(join(bundle, 'isolinux/isolinux_config.template'), 'kernel {{ kernel }}');
  expect(() => checkConductorBundle(env, bundle)).not.toThrow();
});

it('accepts any bundles for a conductor without the CA', () => {
  expect(() => checkConductorBundle({ CONDUCTOR_QUEUES: '{}' }, join(bundle, 'nowhere'))).not.toThrow();
});
