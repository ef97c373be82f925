/**
 * Ironic's `[DEFAULT]isolinux_bin` and `[DEFAULT]ldlinux_c32` for both stacks: isolinux, read from
 * the deployer's machine when the stack is synthesized (or the local stack starts) and put in the
 * conductor's code at `ISOLINUX_BUNDLE_PATHS`, which `ISOLINUX_BIN` and `LDLINUX_C32` name. The
 * conductor builds BIOS-bootable agent ISOs with them (functions/drivers/redfish/isolinux.ts).
 *
 * Unset, the settings default to Debian's files (packages `isolinux` and `syslinux-common`) when
 * they are there, and to Ironic's other ldlinux.c32 folder; without isolinux.bin the conductor is
 * built without it and refuses BIOS-mode ISOs, saying what to install. A file an operator names
 * must be there: the synth fails naming it. An operator's isolinux.cfg template
 * (`isolinuxConfigTemplate`) goes the same way, checked at synth as the conductor renders it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { ENV, ISOLINUX_BUNDLE_PATHS } from '../functions/common/config';
import { isolinuxTemplateProblem } from '../functions/drivers/redfish/isolinux-template';

/** Debian's isolinux.bin (package `isolinux`). */
export const DEBIAN_ISOLINUX_BIN = '/usr/lib/ISOLINUX/isolinux.bin';
/** Where Ironic looks for ldlinux.c32 when `[DEFAULT]ldlinux_c32` is unset: Debian's (`syslinux-common`) first. */
export const LDLINUX_SEARCH_PATHS = ['/usr/lib/syslinux/modules/bios/ldlinux.c32', '/usr/share/syslinux/ldlinux.c32'] as const;
/** Ironic's `isolinux_config.template`, for the message of a refused one (one line per `|`). */
const IRONIC_DEFAULT_TEMPLATE = 'default boot | label boot | kernel {{ kernel }} | append initrd={{ ramdisk }} text {{ kernel_params }} --';
/** isolinux.bin is a few tens of KiB; anything far larger is not it. */
const MAX_BYTES = 1024 * 1024;
/** The banner isolinux.bin carries, with syslinux's version (e.g. `ISOLINUX 6.04 20200816`). */
const BANNER = /ISOLINUX (\d+)\.(\d+)/;

export interface IsolinuxSettings {
  /** Ironic's `[DEFAULT]isolinux_bin`. @default Debian's, when it is there */
  readonly isolinuxBin?: string;
  /** Ironic's `[DEFAULT]ldlinux_c32`. @default Debian's, or /usr/share/syslinux's, when there */
  readonly ldlinuxC32?: string;
  /**
   * Ironic's `[DEFAULT]isolinux_config_template`: a file whose `{{ kernel }}`, `{{ ramdisk }}` and
   * `{{ kernel_params }}` are rendered into each BIOS ISO's isolinux.cfg. @default Ironic's template
   */
  readonly isolinuxConfigTemplate?: string;
}

/** The files to read, by setting. */
export interface IsolinuxPaths {
  readonly isolinuxBin: string;
  readonly ldlinuxC32?: string;
  readonly configTemplate?: string;
}

/** The files to bundle, by the path each is read from; none when there is no isolinux.bin. */
export function resolveIsolinux(settings: IsolinuxSettings, exists: (path: string) => boolean = existsSync): IsolinuxPaths | undefined {
  const bin = settings.isolinuxBin ?? (exists(DEBIAN_ISOLINUX_BIN) ? DEBIAN_ISOLINUX_BIN : undefined);
  const ldlinux = settings.ldlinuxC32 ?? LDLINUX_SEARCH_PATHS.find((p) => exists(p));
  const template = settings.isolinuxConfigTemplate;
  if (bin === undefined) {
    for (const name of ['ldlinuxC32', 'isolinuxConfigTemplate'] as const) {
      if (settings[name] !== undefined)
        throw new Error(
          `${name} is set but there is no isolinux.bin to use it with: set isolinuxBin (Ironic's [DEFAULT]isolinux_bin), or install Debian's isolinux package`,
        );
    }
    return undefined;
  }
  return {
    isolinuxBin: bin,
    ...(ldlinux === undefined ? {} : { ldlinuxC32: ldlinux }),
    ...(template === undefined ? {} : { configTemplate: template }),
  };
}

/**
 * Read and check the files: readable, isolinux.bin with isolinux's banner and room for its boot
 * info table, and ldlinux.c32 there when that isolinux is syslinux 5 or later (which loads it).
 * The error names the file and what to do.
 */
export function readIsolinux(paths: IsolinuxPaths): { isolinuxBin: Buffer; ldlinuxC32?: Buffer; configTemplate?: Buffer } {
  const template = paths.configTemplate === undefined ? {} : { configTemplate: readTemplate(paths.configTemplate) };
  const bin = readSetting(
    'isolinuxBin',
    '[DEFAULT]isolinux_bin',
    paths.isolinuxBin,
    'the isolinux.bin of syslinux (Debian: package isolinux, /usr/lib/ISOLINUX/isolinux.bin)',
  );
  const banner = BANNER.exec(bin.toString('latin1'));
  if (banner === null || bin.length < 2048) {
    throw new Error(
      `isolinuxBin (Ironic's [DEFAULT]isolinux_bin) "${paths.isolinuxBin}" is not isolinux.bin (no "ISOLINUX <version>" banner): give syslinux's isolinux.bin (Debian: /usr/lib/ISOLINUX/isolinux.bin)`,
    );
  }
  if (paths.ldlinuxC32 === undefined) {
    if (Number(banner[1]) >= 5)
      throw new Error(
        `isolinuxBin "${paths.isolinuxBin}" is ISOLINUX ${banner[1]}.${banner[2]}, which loads ldlinux.c32, and none was found: install Debian's syslinux-common (${LDLINUX_SEARCH_PATHS[0]}) or set ldlinuxC32 (Ironic's [DEFAULT]ldlinux_c32)`,
      );
    return { isolinuxBin: bin, ...template };
  }
  const ldlinux = readSetting(
    'ldlinuxC32',
    '[DEFAULT]ldlinux_c32',
    paths.ldlinuxC32,
    "syslinux's BIOS ldlinux.c32 (Debian: package syslinux-common)",
  );
  return { isolinuxBin: bin, ldlinuxC32: ldlinux, ...template };
}

/** The template, checked as the conductor will render it; the error names the file and what is wrong. */
function readTemplate(path: string): Buffer {
  const bytes = readSetting('isolinuxConfigTemplate', '[DEFAULT]isolinux_config_template', path, 'an isolinux.cfg template');
  const problem = isolinuxTemplateProblem(bytes.toString('utf8'));
  if (problem !== undefined)
    throw new Error(
      `isolinuxConfigTemplate (Ironic's [DEFAULT]isolinux_config_template) "${path}" cannot be rendered: ${problem}. Ironic's default is: ${IRONIC_DEFAULT_TEMPLATE}`,
    );
  return bytes;
}

function readSetting(name: string, ironic: string, path: string, what: string): Buffer {
  const label = `${name} (Ironic's ${ironic}) "${path}"`;
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    throw new Error(`${label} cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)}): give the path of ${what}`);
  }
  if (bytes.length === 0 || bytes.length > MAX_BYTES) throw new Error(`${label} is ${bytes.length} bytes: give the path of ${what}`);
  return bytes;
}

/** What the conductor's code and environment get: the files in its code, the variables naming them. */
export function isolinuxForConductor(settings: IsolinuxSettings): {
  readonly files: Readonly<Record<string, Buffer>>;
  readonly environment: Readonly<Record<string, string>>;
} {
  const paths = resolveIsolinux(settings);
  if (paths === undefined) return { files: {}, environment: {} };
  const read = readIsolinux(paths);
  const files: Record<string, Buffer> = { [ISOLINUX_BUNDLE_PATHS.isolinuxBin]: read.isolinuxBin };
  const environment: Record<string, string> = { [ENV.isolinuxBin]: ISOLINUX_BUNDLE_PATHS.isolinuxBin };
  if (read.ldlinuxC32 !== undefined) {
    files[ISOLINUX_BUNDLE_PATHS.ldlinuxC32] = read.ldlinuxC32;
    environment[ENV.ldlinuxC32] = ISOLINUX_BUNDLE_PATHS.ldlinuxC32;
  }
  if (read.configTemplate !== undefined) {
    files[ISOLINUX_BUNDLE_PATHS.configTemplate] = read.configTemplate;
    environment[ENV.isolinuxConfigTemplate] = ISOLINUX_BUNDLE_PATHS.configTemplate;
  }
  return { files, environment };
}
