/**
 * Ironic's `[DEFAULT]isolinux_config_template` as Ironless renders it: `{{ kernel }}`,
 * `{{ ramdisk }}` and `{{ kernel_params }}` (the variables Ironic's `_generate_cfg` gives), one
 * trailing newline dropped as Jinja2 does, and templates using anything else refused with why.
 */
import { isolinuxConfig, loadIsolinux } from '../../../functions/drivers/redfish/isolinux';
import { isolinuxTemplateProblem, renderIsolinuxTemplate } from '../../../functions/drivers/redfish/isolinux-template';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Ironic's own template, as its file has it. */
const IRONIC_TEMPLATE = 'default boot\n\nlabel boot\nkernel {{ kernel }}\nappend initrd={{ ramdisk }} text {{ kernel_params }} --\n';

describe('isolinux config template', () => {
  it('renders Ironic’s template as Ironic does (the trailing newline dropped)', () => {
    expect(isolinuxTemplateProblem(IRONIC_TEMPLATE)).toBeUndefined();
    expect(renderIsolinuxTemplate(IRONIC_TEMPLATE, { kernel: '/vmlinuz', ramdisk: '/initrd', kernel_params: 'a=1 b' })).toBe(
      'default boot\n\nlabel boot\nkernel /vmlinuz\nappend initrd=/initrd text a=1 b --',
    );
  });

  it('gives an operator’s template the ISO’s paths and the kernel parameters', () => {
    const template =
      'serial 0 115200\ndefault agent\ntimeout 50\nlabel agent\n  kernel {{kernel}}\n  append initrd={{ ramdisk }} console=ttyS0 {{ kernel_params }}\n';
    expect(isolinuxConfig('ipa-api-url=x', 'vmlinuz', 'initrd', template)).toBe(
      'serial 0 115200\ndefault agent\ntimeout 50\nlabel agent\n  kernel /vmlinuz\n  append initrd=/initrd console=ttyS0 ipa-api-url=x',
    );
  });

  it.each([
    ['{% if x %}kernel {{ kernel }}{% endif %}', 'it uses Jinja2 statements ({% %}) or comments ({# #}), which Ironless does not render'],
    ['{# note #}kernel {{ kernel }}', 'it uses Jinja2 statements ({% %}) or comments ({# #}), which Ironless does not render'],
    ['kernel {{ kernel | upper }}', 'it uses {{ kernel | upper }}; only {{ kernel }}, {{ ramdisk }}, {{ kernel_params }} are rendered'],
    ['kernel {{ kernel }} {{ root }}', 'it uses {{ root }}; only {{ kernel }}, {{ ramdisk }}, {{ kernel_params }} are rendered'],
    ['kernel {{ kernel }} {{ ramdisk', 'it has a {{ or }} that does not enclose a variable'],
    ['append initrd={{ ramdisk }}', 'it never names {{ kernel }}: isolinux would have no kernel to boot'],
  ])('refuses %j', (template, problem) => {
    expect(isolinuxTemplateProblem(template)).toBe(problem);
  });

  it('is read by the conductor from its code, and a template it cannot render fails the cold start', () => {
    const dir = mkdtempSync(join(tmpdir(), 'isolinux-tpl-'));
    writeFileSync(join(dir, 'isolinux.bin'), 'bin');
    writeFileSync(join(dir, 'good.template'), IRONIC_TEMPLATE);
    writeFileSync(join(dir, 'bad.template'), 'kernel {{ root }}');
    const env = { LAMBDA_TASK_ROOT: dir, ISOLINUX_BIN: 'isolinux.bin' };
    expect(loadIsolinux({ ...env, ISOLINUX_CONFIG_TEMPLATE: 'good.template' })?.configTemplate).toBe(IRONIC_TEMPLATE);
    expect(loadIsolinux(env)?.configTemplate).toBeUndefined();
    expect(() => loadIsolinux({ ...env, ISOLINUX_CONFIG_TEMPLATE: 'bad.template' })).toThrow(
      'Environment variable ISOLINUX_CONFIG_TEMPLATE names a template Ironless cannot render: it uses {{ root }}',
    );
  });
});
