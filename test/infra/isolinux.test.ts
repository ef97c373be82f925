/**
 * Ironic's `[DEFAULT]isolinux_bin` and `ldlinux_c32` in the CDK stack (issue 21): Debian's files by
 * default (installed on this machine, as .ci/run installs them), or those the settings or `-c
 * isolinuxBin=`/`-c ldlinuxC32=` name, are checked at synth and land in the conductor's code
 * asset, named by ISOLINUX_BIN and LDLINUX_C32 in the conductor's environment only; a bad file
 * stops the synth; without isolinux.bin nothing is bundled (BIOS ISOs are then refused). An
 * operator's `isolinux_config_template` (`-c isolinuxConfigTemplate=`) is bundled the same way,
 * named by ISOLINUX_CONFIG_TEMPLATE, and one the conductor could not render stops the synth.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { propsFromContext } from '../../lib/app-context';
import { IronlessStack } from '../../lib/ironless-stack';
import { DEBIAN_ISOLINUX_BIN, LDLINUX_SEARCH_PATHS, readIsolinux, resolveIsolinux } from '../../lib/isolinux';

const DEBIAN_LDLINUX = LDLINUX_SEARCH_PATHS[0];

type Fn = {
  Properties: { Description: string; Code: { S3Key: string }; Environment: { Variables: Record<string, unknown> } };
};

/** The stack's functions by name, with the folder of each one's code asset in the cloud assembly. */
function functionsOf(app: App, stack: IronlessStack): Map<string, { fn: Fn; code: string }> {
  const assembly = app.synth();
  const found = Template.fromStack(stack).findResources('AWS::Lambda::Function', {
    Properties: { Description: Match.stringLikeRegexp('^Ironless ') },
  });
  return new Map(
    (Object.values(found) as Fn[]).map((fn) => [
      /^Ironless (\S+)/.exec(fn.Properties.Description)?.[1] as string,
      { fn, code: join(assembly.directory, `asset.${fn.Properties.Code.S3Key.replace(/\.zip$/, '')}`) },
    ]),
  );
}

it("bundles Debian's isolinux.bin and ldlinux.c32 into the conductor's code by default, naming them in its environment only", () => {
  const app = new App();
  const functions = functionsOf(app, new IronlessStack(app, 'Isolinux'));
  const conductor = functions.get('conductor');
  const env = conductor?.fn.Properties.Environment.Variables;
  expect([env?.ISOLINUX_BIN, env?.LDLINUX_C32]).toEqual(['isolinux/isolinux.bin', 'isolinux/ldlinux.c32']);
  expect(readFileSync(join(conductor?.code ?? '', 'isolinux/isolinux.bin'))).toEqual(readFileSync(DEBIAN_ISOLINUX_BIN));
  expect(readFileSync(join(conductor?.code ?? '', 'isolinux/ldlinux.c32'))).toEqual(readFileSync(DEBIAN_LDLINUX));
  const api = functions.get('api');
  expect(api?.fn.Properties.Environment.Variables.ISOLINUX_BIN).toBeUndefined();
  expect(existsSync(join(api?.code ?? '', 'isolinux'))).toBe(false);
});

it('bundles the files named in context instead', () => {
  const dir = mkdtempSync(join(tmpdir(), 'isolinux-ctx-'));
  copyFileSync(DEBIAN_ISOLINUX_BIN, join(dir, 'isolinux.bin'));
  // Another ldlinux.c32 than Debian's, so the test tells them apart.
  writeFileSync(join(dir, 'ldlinux.c32'), Buffer.concat([readFileSync(DEBIAN_LDLINUX), Buffer.from('custom')]));
  const app = new App({ context: { isolinuxBin: join(dir, 'isolinux.bin'), ldlinuxC32: join(dir, 'ldlinux.c32') } });
  const props = propsFromContext(app.node);
  expect([props.settings?.isolinuxBin, props.settings?.ldlinuxC32]).toEqual([join(dir, 'isolinux.bin'), join(dir, 'ldlinux.c32')]);
  const conductor = functionsOf(app, new IronlessStack(app, 'IsolinuxCtx', props)).get('conductor');
  expect(
    readFileSync(join(conductor?.code ?? '', 'isolinux/ldlinux.c32'))
      .toString('latin1')
      .endsWith('custom'),
  ).toBe(true);
});

it('stops the synth for a file that cannot be read or is not isolinux.bin', () => {
  const dir = mkdtempSync(join(tmpdir(), 'isolinux-bad-'));
  const stack = (settings: { isolinuxBin?: string; ldlinuxC32?: string }) => () => new IronlessStack(new App(), 'Bad', { settings });
  expect(stack({ isolinuxBin: join(dir, 'missing.bin') })).toThrow(
    `isolinuxBin (Ironic's [DEFAULT]isolinux_bin) "${join(dir, 'missing.bin')}" cannot be read (ENOENT): give the path of the isolinux.bin of syslinux`,
  );
  writeFileSync(join(dir, 'other.bin'), Buffer.alloc(4096, 1));
  expect(stack({ isolinuxBin: join(dir, 'other.bin') })).toThrow(
    `"${join(dir, 'other.bin')}" is not isolinux.bin (no "ISOLINUX <version>" banner)`,
  );
  expect(stack({ isolinuxBin: DEBIAN_ISOLINUX_BIN, ldlinuxC32: join(dir, 'missing.c32') })).toThrow(
    `ldlinuxC32 (Ironic's [DEFAULT]ldlinux_c32) "${join(dir, 'missing.c32')}" cannot be read (ENOENT)`,
  );
});

it('bundles nothing without isolinux.bin, and wants ldlinux.c32 for a syslinux 5 or later isolinux.bin', () => {
  expect(resolveIsolinux({}, () => false)).toBeUndefined();
  expect(resolveIsolinux({}, (p) => p === DEBIAN_ISOLINUX_BIN)).toEqual({ isolinuxBin: DEBIAN_ISOLINUX_BIN });
  expect(() => resolveIsolinux({ ldlinuxC32: DEBIAN_LDLINUX }, () => false)).toThrow(
    'ldlinuxC32 is set but there is no isolinux.bin to use it with',
  );
  expect(() => readIsolinux({ isolinuxBin: DEBIAN_ISOLINUX_BIN })).toThrow(
    /is ISOLINUX 6\.\d+, which loads ldlinux\.c32, and none was found: install Debian's syslinux-common/,
  );
});

it('bundles the isolinux_config_template named in context, naming it to the conductor only, and refuses one it cannot render', () => {
  const dir = mkdtempSync(join(tmpdir(), 'isolinux-tpl-'));
  const template = 'default agent\ntimeout 30\nlabel agent\nkernel {{ kernel }}\nappend initrd={{ ramdisk }} {{ kernel_params }}\n';
  writeFileSync(join(dir, 'isolinux.cfg.template'), template);
  const app = new App({ context: { isolinuxConfigTemplate: join(dir, 'isolinux.cfg.template') } });
  const props = propsFromContext(app.node);
  expect(props.settings?.isolinuxConfigTemplate).toBe(join(dir, 'isolinux.cfg.template'));
  const functions = functionsOf(app, new IronlessStack(app, 'IsolinuxTemplate', props));
  const conductor = functions.get('conductor');
  expect(conductor?.fn.Properties.Environment.Variables.ISOLINUX_CONFIG_TEMPLATE).toBe('isolinux/isolinux_config.template');
  expect(readFileSync(join(conductor?.code ?? '', 'isolinux/isolinux_config.template'), 'utf8')).toBe(template);
  expect(functions.get('api')?.fn.Properties.Environment.Variables.ISOLINUX_CONFIG_TEMPLATE).toBeUndefined();

  writeFileSync(join(dir, 'jinja.template'), '{% for k in kernels %}kernel {{ k }}{% endfor %}');
  expect(() => new IronlessStack(new App(), 'BadTemplate', { settings: { isolinuxConfigTemplate: join(dir, 'jinja.template') } })).toThrow(
    `isolinuxConfigTemplate (Ironic's [DEFAULT]isolinux_config_template) "${join(dir, 'jinja.template')}" cannot be rendered: it uses Jinja2 statements ({% %}) or comments ({# #}), which Ironless does not render. Ironic's default is: default boot | label boot | kernel {{ kernel }} | append initrd={{ ramdisk }} text {{ kernel_params }} --`,
  );
  expect(() => new IronlessStack(new App(), 'NoTemplate', { settings: { isolinuxConfigTemplate: join(dir, 'missing') } })).toThrow(
    `isolinuxConfigTemplate (Ironic's [DEFAULT]isolinux_config_template) "${join(dir, 'missing')}" cannot be read (ENOENT)`,
  );
  expect(() => resolveIsolinux({ isolinuxConfigTemplate: join(dir, 'isolinux.cfg.template') }, () => false)).toThrow(
    'isolinuxConfigTemplate is set but there is no isolinux.bin to use it with',
  );
});
