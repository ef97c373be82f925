/**
 * What IPA takes from the virtual media it booted from before it reads its configuration
 * (`copy_config_from_vmedia`, then oslo.config): when the kernel line says `boot_method=vmedia` and
 * the volume is labelled `config-2` or `vmedia_boot_iso` (any case), the files under
 * `etc/ironic-python-agent/` and `etc/ironic-python-agent.d/` are copied to /etc; the `.conf` files
 * of /etc/ironic-python-agent.d are read in name order, later ones winning; `[DEFAULT]cafile` names
 * the CA that IPA verifies the API's certificate with, and `ipa-insecure` on the kernel line (or
 * `[DEFAULT]insecure`) turns verification off (IPA's `get_ssl_client_options`).
 */

/** A `key=value` argument of a kernel command line (the last one wins, as the kernel's parsing does); undefined when absent. */
export function kernelArg(cmdline: string | undefined, key: string): string | undefined {
  let value: string | undefined;
  for (const word of (cmdline ?? '').split(/\s+/)) {
    if (word.startsWith(`${key}=`)) value = word.slice(key.length + 1);
  }
  return value === '' ? undefined : value;
}

/** The labels IPA looks for (`_find_vmedia_device_by_labels`). */
const CONFIG_LABELS = ['config-2', 'vmedia_boot_iso'];
const ETC_FOLDERS = ['etc/ironic-python-agent/', 'etc/ironic-python-agent.d/'];
const CONFIG_DIR = '/etc/ironic-python-agent.d/';

/** What the agent verifies the API's TLS certificate with. */
export interface AgentTls {
  /** `[DEFAULT]cafile`, when a configuration file sets it. */
  readonly cafile?: string;
  /** The file it names, when the agent has it (copied from the media). */
  readonly ca?: Buffer;
  /** `ipa-insecure` / `[DEFAULT]insecure`: no verification at all. */
  readonly insecure: boolean;
}

/** The files IPA copies to /etc from the media (absolute path → content); none unless it booted from this media. */
export function copyConfigFromVmedia(
  media: { readonly label: string; readonly files: ReadonlyMap<string, Buffer> },
  cmdline: string,
): Map<string, Buffer> {
  const etc = new Map<string, Buffer>();
  if (kernelArg(cmdline, 'boot_method') !== 'vmedia') return etc;
  if (!CONFIG_LABELS.includes(media.label.toLowerCase())) return etc;
  for (const [path, data] of media.files) {
    // Only the folders' own files: IPA copies each folder's entries, not what lies deeper.
    const folder = ETC_FOLDERS.find((f) => path.startsWith(f) && !path.slice(f.length).includes('/'));
    if (folder !== undefined) etc.set(`/${path}`, data);
  }
  return etc;
}

/** oslo.config's view of an INI file: `[section]` headers, `key = value` (or `key: value`) lines, `#`/`;` comments. */
function parseIni(text: string): Map<string, Map<string, string>> {
  const sections = new Map<string, Map<string, string>>();
  let section = 'DEFAULT';
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      section = header[1] as string;
      continue;
    }
    const pair = /^([^=:\s]+)\s*[=:]\s*(.*)$/.exec(line);
    if (!pair) continue;
    if (!sections.has(section)) sections.set(section, new Map());
    sections.get(section)?.set(pair[1] as string, (pair[2] as string).trim());
  }
  return sections;
}

const TRUE = ['true', '1', 'yes', 'on'];

/** The agent's TLS settings from the copied configuration and the kernel line. */
export function agentTls(etc: ReadonlyMap<string, Buffer>, cmdline: string): AgentTls {
  let cafile: string | undefined;
  let insecure = TRUE.includes((kernelArg(cmdline, 'ipa-insecure') ?? '').toLowerCase());
  const confs = [...etc.keys()].filter((p) => p.startsWith(CONFIG_DIR) && p.endsWith('.conf')).sort();
  for (const path of confs) {
    const defaults = parseIni((etc.get(path) as Buffer).toString('utf8')).get('DEFAULT');
    const file = defaults?.get('cafile');
    if (file !== undefined && file !== '') cafile = file;
    const flag = defaults?.get('insecure');
    if (flag !== undefined) insecure = TRUE.includes(flag.toLowerCase());
  }
  const ca = cafile === undefined ? undefined : etc.get(cafile);
  return { ...(cafile === undefined ? {} : { cafile }), ...(ca === undefined ? {} : { ca }), insecure };
}
