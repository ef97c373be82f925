/**
 * The ramdisk's logs, kept as Ironic keeps them (`drivers/utils.py` collect_ramdisk_logs and
 * store_ramdisk_logs, `[agent]deploy_logs_*`): the conductor asks the agent for
 * `log.collect_system_logs`, whose answer is a base64 gzipped tar, and puts the archive in the
 * stack's ramdisk logs bucket (Ironless's stand-in for Ironic's swift container; the bucket's
 * lifecycle rule expires it as Ironic's `X-Delete-After` does) under Ironic's file name.
 *
 * In-band inspection: the ramdisk posts its logs (the same archive) with its inventory. They do
 * not fit the cast that carries the data to the conductor, so the API stages them in the bucket
 * under `pending/` (expired after a day by the bucket's lifecycle) and the conductor, once it knows
 * how the inspection went, copies them to Ironic's name with the label `inspect`.
 *
 * Keeping logs never changes what happens to the node: whatever fails here (the agent, S3, the
 * time left) is logged and the flow goes on, as in Ironic.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { S3Client } from '@aws-sdk/client-s3';
import { type LogsCollect, type RamdiskLogsConfig, loadRamdiskLogsConfig } from '#common/config';
import { once } from '#common/lazy';
import type { Node } from '#objects/node';
import { AgentClient } from '../agent-client';
import { guardOf } from '../guard';
import { agentClientOptions } from './inband';

type Log = Pick<Logger, 'info' | 'warn' | 'error'>;

/** Whether a flow that ended this way keeps the ramdisk's logs under `collect`. */
export function keepsLogs(collect: LogsCollect, outcome: 'failure' | 'success'): boolean {
  return collect === 'always' || (collect === 'on_failure' && outcome === 'failure');
}

/**
 * Ironic's get_ramdisk_logs_file_name: `<node uuid>[_<node name>][_<instance uuid>][_<label>]_<UTC
 * time as %Y-%m-%d-%H-%M-%S>.tar.gz`; the label says what ran (`cleaning`, `service`, `inspect`;
 * none for a deploy).
 */
export function ramdiskLogsFileName(node: Pick<Node, 'uuid' | 'name' | 'instance_uuid'>, label?: string, now = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  const stamp = `${now.getUTCFullYear()}-${p(now.getUTCMonth() + 1)}-${p(now.getUTCDate())}-${p(now.getUTCHours())}-${p(now.getUTCMinutes())}-${p(now.getUTCSeconds())}`;
  const fields = [node.uuid, node.name, node.instance_uuid, label].filter((f): f is string => typeof f === 'string' && f !== '');
  return `${[...fields, stamp].join('_')}.tar.gz`;
}

/** What keeping logs uses; tests pass their own. */
export interface LogsPorts {
  readonly config?: RamdiskLogsConfig;
  readonly s3?: S3Client;
  readonly client?: AgentClient;
  readonly now?: () => Date;
}

const s3Sdk = once(() => import('@aws-sdk/client-s3'));
const defaultS3 = once(async () => new (await s3Sdk()).S3Client({}));
const defaultConfig = once(async () => loadRamdiskLogsConfig());

/**
 * The most one archive may weigh as the agent sends it (base64): an IPA's journal and dmesg are a
 * few MiB gzipped; the conductor holds the answer in its memory.
 */
export const MAX_LOGS_BODY_BYTES = 32 * 1024 * 1024;
/** The longest the conductor waits for the agent's archive: what is left of the invocation must still fail or finish the flow. */
const COLLECT_TIMEOUT_MS = 30_000;

/**
 * Ironic's store_ramdisk_logs: `logs` (base64 of a gzipped tar) goes in the bucket under Ironic's
 * file name; nothing is stored with `never`. Throws what S3 throws.
 */
export async function storeRamdiskLogs(
  node: Node,
  logs: string,
  label: string | undefined,
  log: Log,
  ports: LogsPorts = {},
): Promise<void> {
  const config = ports.config ?? (await defaultConfig());
  if (config.collect === 'never') {
    log.info('Ramdisk logs will not be stored: deployLogsCollect is "never"', { node: node.uuid });
    return;
  }
  if (config.bucket === undefined) {
    log.warn('Ramdisk logs are not stored: no ramdisk logs bucket is configured', { node: node.uuid });
    return;
  }
  const key = ramdiskLogsFileName(node, label, ports.now?.() ?? new Date());
  const { PutObjectCommand } = await s3Sdk();
  const s3 = ports.s3 ?? (await defaultS3());
  await s3.send(
    new PutObjectCommand({ Bucket: config.bucket, Key: key, Body: Buffer.from(logs, 'base64'), ContentType: 'application/gzip' }),
  );
  log.info('Ramdisk logs were stored', { node: node.uuid, bucket: config.bucket, key });
}

/**
 * Ironic's collect_ramdisk_logs, for a flow that ended with `outcome`: when the mode keeps such logs
 * and the node's agent runs (it has called back and not been powered off since: `agent_url`), ask
 * it for its logs and store them. Never throws.
 */
export async function collectRamdiskLogs(
  node: Node,
  how: { readonly label?: string | undefined; readonly outcome: 'failure' | 'success' },
  log: Log,
  ports: LogsPorts = {},
): Promise<void> {
  try {
    const config = ports.config ?? (await defaultConfig());
    if (!keepsLogs(config.collect, how.outcome)) return;
    if (config.bucket === undefined) {
      log.warn('Ramdisk logs not collected: no ramdisk logs bucket is configured', { node: node.uuid });
      return;
    }
    if (typeof node.driver_internal_info.agent_url !== 'string' || node.driver_internal_info.agent_url === '') {
      log.info('Ramdisk logs not collected: the agent is not running', { node: node.uuid });
      return;
    }
    let logs: unknown;
    try {
      const remaining = guardOf(node)?.remainingMs() ?? Number.POSITIVE_INFINITY;
      const base = agentClientOptions();
      const client =
        ports.client ??
        new AgentClient({
          ...base,
          attempts: 1,
          commandTimeoutMs: Math.max(1, Math.min(base.commandTimeoutMs, COLLECT_TIMEOUT_MS, remaining / 2)),
          maxBodyBytes: MAX_LOGS_BODY_BYTES,
        });
      const result = await client.command(node, 'log.collect_system_logs', {}, true);
      logs = result.command_result?.system_logs;
    } catch (err) {
      log.error(`Failed to invoke collect_system_logs agent command for node ${node.uuid}. Error: ${(err as Error).message}`);
      return;
    }
    if (typeof logs !== 'string' || logs === '') {
      log.error(`Failed to collect logs from the node ${node.uuid}: the agent returned no system_logs`);
      return;
    }
    await storeRamdiskLogs(node, logs, how.label, log, { ...ports, config });
  } catch (err) {
    log.error(`Failed to store the logs from the node ${node.uuid}. Error: ${(err as Error).message}`);
  }
}

/** Where the API stages the logs a ramdisk posted with its inspection data, until the conductor decides. */
export const PENDING_PREFIX = 'pending/';

/**
 * API: stage the `logs` a ramdisk posted with its inspection data (base64 of a gzipped tar) for the
 * conductor, unless no outcome could keep them (`never`, no bucket). Returns the staged key; never
 * throws (a ramdisk's data is processed without its logs rather than refused).
 */
export async function stageInspectionLogs(nodeUuid: string, logs: unknown, log: Log, ports: LogsPorts = {}): Promise<string | undefined> {
  try {
    const config = ports.config ?? (await defaultConfig());
    if (config.collect === 'never' || config.bucket === undefined) return undefined;
    if (typeof logs !== 'string' || logs === '') return undefined;
    const key = `${PENDING_PREFIX}${nodeUuid}/${randomUUID()}.tar.gz`;
    const { PutObjectCommand } = await s3Sdk();
    const s3 = ports.s3 ?? (await defaultS3());
    await s3.send(
      new PutObjectCommand({ Bucket: config.bucket, Key: key, Body: Buffer.from(logs, 'base64'), ContentType: 'application/gzip' }),
    );
    return key;
  } catch (err) {
    log.warn(`Could not stage the ramdisk logs of node ${nodeUuid}; they will not be kept. Error: ${(err as Error).message}`);
    return undefined;
  }
}

/**
 * Conductor: keep the logs the API staged for an inspection that ended with `outcome` (Ironic's
 * `_store_logs` in its agent inspect interface: on a failure of the inspection hooks, and with
 * `always` on success), under Ironic's name with the label `inspect`. Never throws.
 */
export async function keepInspectionLogs(
  node: Node,
  stagedKey: string | undefined,
  outcome: 'failure' | 'success',
  log: Log,
  ports: LogsPorts = {},
): Promise<void> {
  try {
    const config = ports.config ?? (await defaultConfig());
    if (!keepsLogs(config.collect, outcome) || config.bucket === undefined) return;
    if (stagedKey === undefined || !stagedKey.startsWith(`${PENDING_PREFIX}${node.uuid}/`)) {
      log.warn(`No logs were passed by the ramdisk for node ${node.uuid}.`);
      return;
    }
    const key = ramdiskLogsFileName(node, 'inspect', ports.now?.() ?? new Date());
    const { CopyObjectCommand } = await s3Sdk();
    const s3 = ports.s3 ?? (await defaultS3());
    await s3.send(new CopyObjectCommand({ Bucket: config.bucket, Key: key, CopySource: `${config.bucket}/${stagedKey}` }));
    log.info('Ramdisk logs were stored', { node: node.uuid, bucket: config.bucket, key });
  } catch (err) {
    log.error(`Could not store the ramdisk logs for node ${node.uuid}. Error: ${(err as Error).message}`);
  }
}
