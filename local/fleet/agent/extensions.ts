/**
 * The agent's command extensions, those Ironic 21.4's agent client and direct deploy call:
 * `deploy`, `clean` and `service` (list and run in-band steps), `standby` (image, power, sync, partition
 * UUIDs), `image.install_bootloader`, `log.collect_system_logs`, `rescue.finalize_rescue` and
 * `system.lockdown` (how a deploy leaves a node that may not be powered off).
 * Argument names and result shapes are IPA's (`{deploy_result, deploy_step}` …).
 */
import type { CommandSpec, Extension, Params } from './commands';
import type { HardwareOptions, StepKind, VirtualHardware } from './hardware';
import { validateImageInfo, type ImageInfo } from './image';
import { agentLogsArchive } from './logs-archive';

/** What the extensions need from the agent around them. */
export interface ExtensionHost {
  readonly hardware: VirtualHardware;
  /** A step is about to run (fault injection: crash on a named step). */
  beforeStep(name: string): void;
  /** The OS powers off or reboots, once the command's response has gone out. */
  shutdown(reboot: boolean): void;
  /** Rescue is finalized: the agent stops serving and heartbeating. */
  finalizeRescue(): void;
  /** `system.lockdown`: once the answer has gone out, the agent stops serving and heartbeating for good. */
  lockdown(): void;
  /** Lines for log.collect_system_logs. */
  logLines(): readonly string[];
}

export type { HardwareOptions };

function stepExtension(host: ExtensionHost, kind: StepKind): Extension {
  const versionKey = `${kind}_version`;
  const list: CommandSpec = {
    mode: 'sync',
    required: ['node', 'ports'],
    run: () => ({ [`${kind}_steps`]: host.hardware.steps(kind), hardware_manager_version: host.hardware.versions() }),
  };
  const execute: CommandSpec = {
    mode: 'async',
    required: ['step', 'node', 'ports'],
    optional: [versionKey],
    extra: true,
    run: async (params: Params, signal) => {
      host.hardware.checkVersions(params[versionKey]);
      const step = params.step as Record<string, unknown> | null;
      if (typeof step !== 'object' || step === null || !('step' in step))
        throw new Error(`Malformed ${kind}_step, no "step" key: ${JSON.stringify(step)}`);
      const name = String(step.step);
      const { step: _s, node, ports, [versionKey]: _v, ...kwargs } = params;
      const args = { node, ports, ...kwargs, ...((step.args as Params | undefined) ?? {}) };
      host.beforeStep(name);
      const result = await host.hardware.run(kind, name, args, signal);
      return { [`${kind}_result`]: result ?? null, [`${kind}_step`]: step };
    },
  };
  return { [`get_${kind}_steps`]: list, [`execute_${kind}_step`]: execute };
}

export function buildExtensions(host: ExtensionHost): Record<string, Extension> {
  const hw = host.hardware;
  const shutdown = (reboot: boolean): CommandSpec => ({
    mode: 'async',
    run: () => {
      host.shutdown(reboot);
      // The OS goes down under the command: IPA's result never settles; ours says it went through.
      return null;
    },
  });
  return {
    deploy: stepExtension(host, 'deploy'),
    clean: stepExtension(host, 'clean'),
    service: stepExtension(host, 'service'),
    standby: {
      prepare_image: {
        mode: 'async',
        required: ['image_info'],
        optional: ['configdrive'],
        validate: validateImageInfo,
        run: (p, signal) => {
          const info = { ...(p.image_info as ImageInfo) };
          const configdrive = (p.configdrive as string | undefined) ?? (info.configdrive as string | undefined);
          return hw.prepareImage(info, configdrive, signal);
        },
      },
      cache_image: {
        mode: 'async',
        required: ['image_info'],
        optional: ['force', 'configdrive'],
        validate: validateImageInfo,
        run: async (p, signal) => {
          const info = p.image_info as ImageInfo;
          if (p.force === true) hw.cachedImageId = null;
          const message = await hw.prepareImage(info, p.configdrive as string | undefined, signal);
          return message.replace(' written to ', ' cached to ');
        },
      },
      power_off: shutdown(false),
      run_image: shutdown(true),
      sync: { mode: 'sync', run: () => null },
      get_partition_uuids: { mode: 'sync', run: () => hw.partitionUuids ?? {} },
    },
    image: {
      install_bootloader: {
        mode: 'async',
        required: ['root_uuid'],
        optional: ['efi_system_part_uuid', 'prep_boot_part_uuid', 'target_boot_mode', 'ignore_bootloader_failure', 'software_raid'],
        run: (p) => hw.installBootloader(p),
      },
    },
    log: {
      collect_system_logs: {
        mode: 'sync',
        run: () => ({ system_logs: agentLogsArchive(host.logLines()) }),
      },
    },
    system: {
      lockdown: {
        mode: 'sync',
        run: () => {
          host.lockdown();
          return null;
        },
      },
    },
    rescue: {
      finalize_rescue: {
        mode: 'sync',
        optional: ['rescue_password', 'hashed'],
        run: () => {
          host.finalizeRescue();
          return null;
        },
      },
    },
  };
}
