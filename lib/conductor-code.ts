/**
 * What both stacks put in the conductor's code beside its bundle, and the variables that name it:
 * Ironic's `[agent]api_ca_file` (lib/agent-api-ca.ts) and `[DEFAULT]isolinux_bin`/`ldlinux_c32`
 * (lib/isolinux.ts), read on the deployer's machine. Files, not variables: Lambda allows a function
 * 4 KB of environment, and has no conductor host to read them from.
 */
import { agentApiCaForConductor } from './agent-api-ca';
import { type IsolinuxSettings, isolinuxForConductor } from './isolinux';

export function conductorCode(settings: IsolinuxSettings & { readonly agentApiCaFile?: string }): {
  readonly files: Readonly<Record<string, Buffer>>;
  readonly environment: Readonly<Record<string, string>>;
} {
  const ca = agentApiCaForConductor(settings.agentApiCaFile);
  const isolinux = isolinuxForConductor(settings);
  return { files: { ...ca.files, ...isolinux.files }, environment: { ...ca.environment, ...isolinux.environment } };
}
