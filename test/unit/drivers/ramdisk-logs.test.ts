/**
 * Keeping the ramdisk's logs as Ironic's drivers/utils.py does: the file name
 * (get_ramdisk_logs_file_name), which outcomes keep them under `[agent]deploy_logs_collect`, the
 * agent's `log.collect_system_logs` answer put in the bucket as it came (a gzipped tar), and no
 * failure of the agent or of S3 reaching the caller.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import type { LogsCollect } from '../../../functions/common/config';
import { loadRamdiskLogsConfig } from '../../../functions/common/config';
import { AgentClient } from '../../../functions/drivers/agent-client';
import {
  collectRamdiskLogs,
  keepInspectionLogs,
  keepsLogs,
  ramdiskLogsFileName,
  stageInspectionLogs,
  storeRamdiskLogs,
} from '../../../functions/drivers/agent/ramdisk-logs';
import { agentLogsArchive } from '../../../local/fleet/agent/logs-archive';
import { readTarGz } from '../../helpers/tar';
import { makeNode } from '../helpers/builders';
import { FakeIpa } from '../helpers/fake-ipa';
import { stubS3 } from '../helpers/stub-s3';

const NOW = new Date(Date.UTC(2026, 10, 27, 7, 5, 9));
const UUID = '1be26c0b-03f2-4d2e-ae87-c02d7f33c123';
const INSTANCE = 'ab0ea9a1-9d68-4a1e-9b5c-6f1e2c3d4e5f';

function recordingLog() {
  const lines: { level: string; message: string }[] = [];
  const log = new Logger({ serviceName: 'test', logLevel: 'SILENT' });
  for (const level of ['info', 'warn', 'error'] as const) {
    Object.assign(log, { [level]: (message: string) => void lines.push({ level, message }) });
  }
  return { log, lines };
}

describe('ramdiskLogsFileName', () => {
  it('joins uuid, name, instance and label with the UTC time, as Ironic', () => {
    const node = { uuid: UUID, name: 'rack1-node7', instance_uuid: INSTANCE };
    expect(ramdiskLogsFileName(node, 'cleaning', NOW)).toBe(`${UUID}_rack1-node7_${INSTANCE}_cleaning_2026-11-27-07-05-09.tar.gz`);
  });

  it('leaves out what the node lacks, and the label of a deploy', () => {
    expect(ramdiskLogsFileName({ uuid: UUID, name: null, instance_uuid: null }, undefined, NOW)).toBe(`${UUID}_2026-11-27-07-05-09.tar.gz`);
    expect(ramdiskLogsFileName({ uuid: UUID, name: null, instance_uuid: INSTANCE }, 'inspect', NOW)).toBe(
      `${UUID}_${INSTANCE}_inspect_2026-11-27-07-05-09.tar.gz`,
    );
  });
});

describe('keepsLogs', () => {
  it.each<[LogsCollect, boolean, boolean]>([
    ['on_failure', true, false],
    ['always', true, true],
    ['never', false, false],
  ])('%s: a failure %s, a success %s', (mode, failure, success) => {
    expect(keepsLogs(mode, 'failure')).toBe(failure);
    expect(keepsLogs(mode, 'success')).toBe(success);
  });
});

describe('loadRamdiskLogsConfig', () => {
  it("defaults to Ironic's on_failure, without a bucket", () => {
    expect(loadRamdiskLogsConfig({})).toEqual({ collect: 'on_failure', bucket: undefined });
    expect(loadRamdiskLogsConfig({ LOGS_COLLECT: 'always', LOGS_BUCKET: 'logs' })).toEqual({ collect: 'always', bucket: 'logs' });
  });

  it('refuses an unknown mode, naming the values', () => {
    expect(() => loadRamdiskLogsConfig({ LOGS_COLLECT: 'sometimes' })).toThrow(
      'Environment variable LOGS_COLLECT must be one of always, on_failure, never, got "sometimes"',
    );
  });
});

describe('collectRamdiskLogs', () => {
  let ipa: FakeIpa;
  const client = () => new AgentClient({ commandTimeoutMs: 1000, attempts: 1, retryIntervalMs: 1 });
  const archive = agentLogsArchive(['ironic-python-agent starting', 'write_image failed']);
  const agentNode = () =>
    makeNode({
      uuid: UUID,
      name: 'node-7',
      instance_uuid: INSTANCE,
      driver_internal_info: { agent_url: ipa.url, agent_secret_token: ipa.token },
    });

  beforeEach(async () => {
    ipa = await new FakeIpa().start();
    ipa.systemLogs = archive;
  });
  afterEach(async () => {
    await ipa.stop();
  });

  it("puts the agent's archive in the bucket under Ironic's name after a failure", async () => {
    const s3 = stubS3();
    const { log } = recordingLog();
    const config = { collect: 'on_failure' as const, bucket: 'ramdisk-logs' };
    await collectRamdiskLogs(agentNode(), { label: 'cleaning', outcome: 'failure' }, log, {
      config,
      s3: s3.client,
      client: client(),
      now: () => NOW,
    });
    expect(ipa.requests.map((r) => r.name)).toEqual(['log.collect_system_logs']);
    expect(s3.sent).toHaveLength(1);
    expect(s3.sent[0]?.name).toBe('PutObjectCommand');
    expect(s3.sent[0]?.input).toMatchObject({
      Bucket: 'ramdisk-logs',
      Key: `${UUID}_node-7_${INSTANCE}_cleaning_2026-11-27-07-05-09.tar.gz`,
      ContentType: 'application/gzip',
    });
    expect(readTarGz(s3.sent[0]!.body!).journal).toBe('ironic-python-agent starting\nwrite_image failed\n');
  });

  it('asks the agent for nothing when the mode does not keep the outcome, or no agent runs, or no bucket is set', async () => {
    const s3 = stubS3();
    const { log } = recordingLog();
    const ports = { s3: s3.client, client: client() };
    await collectRamdiskLogs(agentNode(), { outcome: 'success' }, log, { ...ports, config: { collect: 'on_failure', bucket: 'b' } });
    await collectRamdiskLogs(agentNode(), { outcome: 'failure' }, log, { ...ports, config: { collect: 'never', bucket: 'b' } });
    await collectRamdiskLogs(agentNode(), { outcome: 'failure' }, log, { ...ports, config: { collect: 'always', bucket: undefined } });
    const noAgent = makeNode({ driver_internal_info: {} });
    await collectRamdiskLogs(noAgent, { outcome: 'failure' }, log, { ...ports, config: { collect: 'always', bucket: 'b' } });
    expect(ipa.requests).toEqual([]);
    expect(s3.sent).toEqual([]);
  });

  it('keeps a success with always', async () => {
    const s3 = stubS3();
    const { log } = recordingLog();
    await collectRamdiskLogs(agentNode(), { outcome: 'success' }, log, {
      config: { collect: 'always', bucket: 'b' },
      s3: s3.client,
      client: client(),
      now: () => NOW,
    });
    expect(s3.sent.map((c) => c.input.Key)).toEqual([`${UUID}_node-7_${INSTANCE}_2026-11-27-07-05-09.tar.gz`]);
  });

  it('never throws: an agent that does not answer, one without logs, and S3 failing are logged', async () => {
    const config = { collect: 'on_failure' as const, bucket: 'b' };
    const { log, lines } = recordingLog();
    ipa.hang = true;
    await expect(collectRamdiskLogs(agentNode(), { outcome: 'failure' }, log, { config, client: client() })).resolves.toBeUndefined();
    ipa.hang = false;
    ipa.systemLogs = undefined;
    await expect(collectRamdiskLogs(agentNode(), { outcome: 'failure' }, log, { config, client: client() })).resolves.toBeUndefined();
    ipa.systemLogs = archive;
    const failing = stubS3(new Error('AccessDenied'));
    await expect(
      collectRamdiskLogs(agentNode(), { outcome: 'failure' }, log, { config, client: client(), s3: failing.client }),
    ).resolves.toBeUndefined();
    expect(lines.filter((l) => l.level === 'error').map((l) => l.message)).toEqual([
      expect.stringMatching(/^Failed to invoke collect_system_logs agent command for node .* timed out/),
      `Failed to collect logs from the node ${UUID}: the agent returned no system_logs`,
      `Failed to store the logs from the node ${UUID}. Error: AccessDenied`,
    ]);
  });
});

describe('storeRamdiskLogs', () => {
  it('stores nothing with never', async () => {
    const s3 = stubS3();
    const { log } = recordingLog();
    await storeRamdiskLogs(makeNode(), agentLogsArchive(['x']), 'inspect', log, {
      config: { collect: 'never', bucket: 'b' },
      s3: s3.client,
    });
    expect(s3.sent).toEqual([]);
  });
});

describe('inspection logs: staged by the API, kept by the conductor', () => {
  const logs = agentLogsArchive(['inspection is enabled']);

  it('stages what the ramdisk posted under pending/<node>/, unless nothing could keep it', async () => {
    const s3 = stubS3();
    const { log } = recordingLog();
    const key = await stageInspectionLogs(UUID, logs, log, { config: { collect: 'on_failure', bucket: 'b' }, s3: s3.client });
    expect(key).toMatch(new RegExp(`^pending/${UUID}/[0-9a-f-]{36}\\.tar\\.gz$`));
    expect(s3.sent[0]?.input).toMatchObject({ Bucket: 'b', Key: key });
    expect(readTarGz(s3.sent[0]!.body!).journal).toBe('inspection is enabled\n');
    expect(await stageInspectionLogs(UUID, logs, log, { config: { collect: 'never', bucket: 'b' }, s3: s3.client })).toBeUndefined();
    expect(await stageInspectionLogs(UUID, logs, log, { config: { collect: 'always', bucket: undefined }, s3: s3.client })).toBeUndefined();
    expect(await stageInspectionLogs(UUID, undefined, log, { config: { collect: 'always', bucket: 'b' }, s3: s3.client })).toBeUndefined();
    expect(s3.sent).toHaveLength(1);
    // S3 failing loses the logs, never the post.
    const failing = stubS3(new Error('SlowDown'));
    expect(await stageInspectionLogs(UUID, logs, log, { config: { collect: 'always', bucket: 'b' }, s3: failing.client })).toBeUndefined();
  });

  it("copies the staged logs to Ironic's name, labelled inspect, when the outcome keeps them", async () => {
    const node = makeNode({ uuid: UUID, name: 'node-7' });
    const staged = `pending/${UUID}/x.tar.gz`;
    const { log, lines } = recordingLog();
    const s3 = stubS3();
    const ports = { s3: s3.client, now: () => NOW };
    await keepInspectionLogs(node, staged, 'failure', log, { ...ports, config: { collect: 'on_failure', bucket: 'b' } });
    await keepInspectionLogs(node, staged, 'success', log, { ...ports, config: { collect: 'on_failure', bucket: 'b' } });
    await keepInspectionLogs(node, staged, 'failure', log, { ...ports, config: { collect: 'never', bucket: 'b' } });
    expect(s3.sent.map((c) => [c.name, c.input])).toEqual([
      ['CopyObjectCommand', { Bucket: 'b', Key: `${UUID}_node-7_inspect_2026-11-27-07-05-09.tar.gz`, CopySource: `b/${staged}` }],
    ]);
    // Nothing staged, or staged for another node: Ironic's warning, nothing copied.
    await keepInspectionLogs(node, undefined, 'failure', log, { ...ports, config: { collect: 'always', bucket: 'b' } });
    await keepInspectionLogs(node, 'pending/other/x.tar.gz', 'failure', log, { ...ports, config: { collect: 'always', bucket: 'b' } });
    expect(s3.sent).toHaveLength(1);
    expect(lines.filter((l) => l.level === 'warn').map((l) => l.message)).toEqual([
      `No logs were passed by the ramdisk for node ${UUID}.`,
      `No logs were passed by the ramdisk for node ${UUID}.`,
    ]);
    const failing = stubS3(new Error('NoSuchKey'));
    await expect(
      keepInspectionLogs(node, staged, 'failure', log, { s3: failing.client, config: { collect: 'always', bucket: 'b' } }),
    ).resolves.toBeUndefined();
    expect(lines.at(-1)).toEqual({ level: 'error', message: `Could not store the ramdisk logs for node ${UUID}. Error: NoSuchKey` });
  });
});
