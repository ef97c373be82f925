/**
 * Ironic's `[agent]api_ca_file` in the CDK stack: the PEM named by the setting (or `-c
 * agentApiCaFile=`) is checked at synth and lands in the conductor's code asset, named by
 * AGENT_API_CA_FILE in the conductor's environment only; a bad file stops the synth.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { propsFromContext } from '../../lib/app-context';
import { PROJECT_ROOT } from '../../lib/bundling';
import { IronlessStack } from '../../lib/ironless-stack';

const CA = join(PROJECT_ROOT, 'test/fixtures/tls/bmc.crt');
const KEY = join(PROJECT_ROOT, 'test/fixtures/tls/bmc.key');

type Fn = {
  Properties: { Description: string; Code: { S3Key: string }; Environment: { Variables: Record<string, unknown> } };
};

/** The stack's functions by name (`conductor`, `api`, …), with the folder of each one's code asset. */
function functionsOf(app: App, stack: IronlessStack): Map<string, { fn: Fn; code: string }> {
  const assembly = app.synth();
  const template = Template.fromStack(stack);
  const found = template.findResources('AWS::Lambda::Function', { Properties: { Description: Match.stringLikeRegexp('^Ironless ') } });
  return new Map(
    (Object.values(found) as Fn[]).map((fn) => [
      /^Ironless (\S+)/.exec(fn.Properties.Description)?.[1] as string,
      // The asset's folder in the cloud assembly, as `cdk deploy` zips it: `asset.<hash>` for `<hash>.zip`.
      { fn, code: join(assembly.directory, `asset.${fn.Properties.Code.S3Key.replace(/\.zip$/, '')}`) },
    ]),
  );
}

it('puts the file named in context in the conductor’s code, and names it in its environment only', () => {
  const app = new App({ context: { agentApiCaFile: CA } });
  const props = propsFromContext(app.node);
  expect(props.settings?.agentApiCaFile).toBe(CA);
  const functions = functionsOf(app, new IronlessStack(app, 'AgentCa', props));
  const conductor = functions.get('conductor');
  expect(conductor?.fn.Properties.Environment.Variables.AGENT_API_CA_FILE).toBe('agent-api-ca.crt');
  expect(readFileSync(join(conductor?.code ?? '', 'agent-api-ca.crt'))).toEqual(readFileSync(CA));
  expect(existsSync(join(conductor?.code ?? '', 'index.mjs'))).toBe(true);
  const api = functions.get('api');
  expect(api?.fn.Properties.Environment.Variables.AGENT_API_CA_FILE).toBeUndefined();
  expect(existsSync(join(api?.code ?? '', 'agent-api-ca.crt'))).toBe(false);
});

it('leaves the code and the environment alone without the setting, beside a stack with it in the same app', () => {
  // One app, one asset folder: CDK's bundling cache must not hand one stack's conductor the other's code.
  const app = new App();
  const withCa = new IronlessStack(app, 'WithAgentCa', { settings: { agentApiCaFile: CA } });
  const without = new IronlessStack(app, 'WithoutAgentCa');
  const conductor = functionsOf(app, without).get('conductor');
  expect(conductor?.fn.Properties.Environment.Variables.AGENT_API_CA_FILE).toBeUndefined();
  expect(existsSync(join(conductor?.code ?? '', 'index.mjs'))).toBe(true);
  expect(existsSync(join(conductor?.code ?? '', 'agent-api-ca.crt'))).toBe(false);
  expect(existsSync(join(functionsOf(app, withCa).get('conductor')?.code ?? '', 'agent-api-ca.crt'))).toBe(true);
});

it('stops the synth for a file that cannot be read, holds no certificate, a broken one or a private key', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-ca-'));
  const stack = (agentApiCaFile: string) => () => new IronlessStack(new App(), 'Bad', { settings: { agentApiCaFile } });
  expect(stack(join(dir, 'missing.pem'))).toThrow(
    `agentApiCaFile (Ironic's [agent]api_ca_file) "${join(dir, 'missing.pem')}" cannot be read (ENOENT): give the path of a PEM file`,
  );
  writeFileSync(join(dir, 'empty.pem'), 'not a certificate\n');
  expect(stack(join(dir, 'empty.pem'))).toThrow('holds no PEM certificate (a "-----BEGIN CERTIFICATE-----" block)');
  writeFileSync(join(dir, 'broken.pem'), `${readFileSync(CA, 'utf8')}-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n`);
  expect(stack(join(dir, 'broken.pem'))).toThrow('certificate 2 of 2 cannot be parsed');
  writeFileSync(join(dir, 'with-key.pem'), readFileSync(CA, 'utf8') + readFileSync(KEY, 'utf8'));
  expect(stack(join(dir, 'with-key.pem'))).toThrow('holds a private key: it is copied onto every agent ISO');
});
