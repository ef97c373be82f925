/**
 * What a BIOS-bootable agent ISO needs besides the kernel and ramdisk (Ironic's
 * `images.create_isolinux_image_for_bios`): isolinux.bin as the El Torito BIOS boot image, the
 * ldlinux.c32 it loads (syslinux 5 and later), and an isolinux.cfg that boots the kernel with the
 * ramdisk and the agent's parameters. Ironic takes the two binaries from the conductor host
 * (`[DEFAULT]isolinux_bin`, `[DEFAULT]ldlinux_c32`); a Lambda has no such host, so the stacks put
 * them in the conductor's code when they are built (lib/isolinux.ts) and `ISOLINUX_BIN` /
 * `LDLINUX_C32` name them there. Without them BIOS-mode ISOs are refused, saying what to set.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { ConfigError, type Env, ENV, ISOLINUX_BUNDLE_PATHS } from '#common/config';
import { isolinuxTemplateProblem, renderIsolinuxTemplate } from './isolinux-template';

/** The binaries, read once at cold start (some 160 KiB together). */
export interface IsolinuxFiles {
  readonly isolinuxBin: Buffer;
  /** Absent with syslinux before 5, whose isolinux.bin needs no ldlinux.c32 (Ironic's is optional too). */
  readonly ldlinuxC32?: Buffer;
  /** The operator's isolinux.cfg template (Ironic's `[DEFAULT]isolinux_config_template`). @default Ironic's */
  readonly configTemplate?: string;
}

/** Where they go on the ISO: Ironic's layout (`ISOLINUX_BIN`, `ISOLINUX_CFG`, `LDLINUX_BIN`). */
export const ISOLINUX_ISO_PATHS = {
  bin: 'isolinux/isolinux.bin',
  cfg: 'isolinux/isolinux.cfg',
  ldlinux: 'isolinux/ldlinux.c32',
} as const;

/** What to do when there is no isolinux: the message of a refused BIOS-mode build ends with it. */
export const NO_ISOLINUX_HINT =
  "build the stack on a machine with Debian's isolinux and syslinux-common packages (or set the settings isolinuxBin and ldlinuxC32, Ironic's [DEFAULT]isolinux_bin and ldlinux_c32)";

/**
 * The isolinux.cfg: the operator's template rendered (`isolinux-template.ts`), else what Ironic's
 * default `isolinux_config_template` yields: one entry, the kernel and ramdisk at the root, `text`,
 * the kernel parameters, and the `--` that ends them.
 */
export function isolinuxConfig(params: string, kernel: string, ramdisk: string, template?: string): string {
  if (template !== undefined)
    return renderIsolinuxTemplate(template, { kernel: `/${kernel}`, ramdisk: `/${ramdisk}`, kernel_params: params });
  return ['default boot', '', 'label boot', `kernel /${kernel}`, `append initrd=/${ramdisk} text ${params} --`, ''].join('\n');
}

/**
 * The binaries the stacks bundled (`ISOLINUX_BIN`, `LDLINUX_C32` name them, relative to the code's
 * root `LAMBDA_TASK_ROOT`). Named but unreadable fails the cold start, naming the file: the code
 * was published without what its environment promises.
 */
export function loadIsolinux(env: Env): IsolinuxFiles | undefined {
  const bin = readBundled(env, ENV.isolinuxBin, ISOLINUX_BUNDLE_PATHS.isolinuxBin);
  if (bin === undefined) return undefined;
  const ldlinux = readBundled(env, ENV.ldlinuxC32, ISOLINUX_BUNDLE_PATHS.ldlinuxC32);
  const template = readBundled(env, ENV.isolinuxConfigTemplate, ISOLINUX_BUNDLE_PATHS.configTemplate)?.toString('utf8');
  const problem = template === undefined ? undefined : isolinuxTemplateProblem(template);
  if (problem !== undefined)
    throw new ConfigError(`Environment variable ${ENV.isolinuxConfigTemplate} names a template Ironless cannot render: ${problem}`);
  return {
    isolinuxBin: bin,
    ...(ldlinux === undefined ? {} : { ldlinuxC32: ldlinux }),
    ...(template === undefined ? {} : { configTemplate: template }),
  };
}

function readBundled(env: Env, variable: string, bundlePath: string): Buffer | undefined {
  const name = env[variable];
  if (name === undefined || name === '') return undefined;
  const path = isAbsolute(name) ? name : join(env.LAMBDA_TASK_ROOT ?? process.cwd(), name);
  try {
    return readFileSync(path);
  } catch (err) {
    throw new ConfigError(
      `Environment variable ${variable} names ${path}, which cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)}): publish the conductor with the file in its code (the stacks put it at ${bundlePath}), or unset the variable`,
    );
  }
}
