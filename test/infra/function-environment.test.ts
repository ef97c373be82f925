/** The functions' environments: default-valued settings left out, and Lambda's 4 KB checked at synth. */
import { App } from 'aws-cdk-lib';
import { IronlessStack } from '../../lib/ironless-stack';
import { DEFAULT_SETTINGS, LOCAL_STACK_DEFAULTS, settingsEnvironment, settingsVariables } from '../../lib/settings';
import { checkEnvironmentSize, withoutDefaults } from '../../lib/function-environment';
import {
  loadAgentConfig,
  loadApiConfig,
  loadConductorConfig,
  loadInspectorConfig,
  loadRamdiskLogsConfig,
} from '../../functions/common/config';
import { loadRedfishConfig } from '../../functions/drivers/redfish/config';

it('leaves out exactly the variables whose absence the functions read as the same value', () => {
  const env = withoutDefaults({
    AUTOMATED_CLEAN: 'true', // the conductor's default
    HEARTBEAT_TIMEOUT: '300', // the default of both API and conductor
    DEPLOY_CALLBACK_TIMEOUT: '900', // not the default
    IMAGE_S3_BUCKETS: '', // no bucket, as when unset
    BMC_DENIED_HOSTS: '', // deny nothing: unlike unset, which denies loopback and link-local
    SOMETHING_NO_LOADER_READS: 'kept',
  });
  expect(env).toEqual({ DEPLOY_CALLBACK_TIMEOUT: '900', BMC_DENIED_HOSTS: '', SOMETHING_NO_LOADER_READS: 'kept' });
});

it('gives every function the same configuration with or without the left-out variables', () => {
  const base = { CONDUCTOR_QUEUES: '{"":"q"}', CONDUCTOR_FUNCTION: 'c', STEPS_STATE_MACHINE_ARN: 'arn' };
  const read = (env: Record<string, string>) =>
    JSON.stringify([
      loadApiConfig({ ...base, ...env }),
      loadConductorConfig({ ...base, ...env }),
      loadAgentConfig(env),
      loadInspectorConfig(env),
      loadRedfishConfig(env),
      loadRamdiskLogsConfig(env),
    ]);
  for (const settings of [DEFAULT_SETTINGS, { ...DEFAULT_SETTINGS, ...LOCAL_STACK_DEFAULTS, automatedClean: false, fastTrack: true }]) {
    const all = settingsVariables(settings);
    const kept = settingsEnvironment(settings);
    expect(Object.keys(kept).length).toBeLessThan(Object.keys(all).length / 2);
    expect(read(kept)).toBe(read(all));
  }
});

it('refuses, at synth, an environment over Lambda’s 4 KB and names its largest variables', () => {
  expect(checkEnvironmentSize('test', { A: 'x'.repeat(4000) })).toBe(4001);
  expect(() => checkEnvironmentSize('test', { A: 'x'.repeat(4000), BB: 'y'.repeat(100) })).toThrow(
    /The test function's environment would take about 4103 bytes, over Lambda's 4096; the largest: A \(4001 bytes\), BB \(102 bytes\)/,
  );
  const imageBuckets = Array.from(
    { length: 60 },
    (_, i) => `images-of-a-rather-long-bucket-name-for-the-fleet-${String(i).padStart(4, '0')}`,
  );
  expect(() => new IronlessStack(new App(), 'Full', { settings: { imageBuckets } })).toThrow(
    /function's environment would take about \d+ bytes, over Lambda's 4096; the largest: IMAGE_S3_BUCKETS/,
  );
});
