/**
 * The peer benchmark's Ironless fleet, written as an operator enrolls a whole fleet: `ironless
 * fleet import` (the bulk loader, bin/commands/fleet-import.ts) run as its own process on the
 * local stack's DynamoDB Local, with the stack's table names. Each node is built by the API's own
 * create code, so the fleet lists and shows as nodes created through the API; Ironic's fleet is
 * likewise written by SQL (peer.bench.ts). `BENCH_PEER_POPULATE=api` creates them through the API
 * instead (one POST /v1/nodes each).
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { PROJECT_ROOT } from '../../lib/bundling';
import { TABLES, type TableName } from '../../functions/db/schema';
import type { LocalStack } from '../../local/stack';

/** `count` fake-hardware nodes, node i in shard `shard-⌊i / shardSize⌋`, imported; says how. */
export async function importFleet(stack: LocalStack, count: number, shardSize: number, say: (line: string) => void): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'peer-fleet-'));
  try {
    const file = join(dir, 'nodes.json');
    // UUIDs make a re-run of the import recognise its nodes (the command warns about nodes without).
    const nodes = Array.from({ length: count }, (_, i) => ({
      uuid: randomUUID(),
      driver: 'fake-hardware',
      shard: `shard-${Math.floor(i / shardSize)}`,
    }));
    writeFileSync(file, JSON.stringify(nodes));
    const env: NodeJS.ProcessEnv = { ...process.env, AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local' };
    for (const [name, def] of Object.entries(TABLES)) env[def.envVar] = stack.tables[name as TableName];
    const args = [
      '--disable-warning=ExperimentalWarning',
      '--import',
      'tsx',
      join(PROJECT_ROOT, 'bin/ironless.ts'),
      'fleet',
      'import',
      '--file',
      file,
      '--endpoint',
      stack.dynamoDbEndpoint!,
      '--region',
      'us-east-1',
    ];
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const output: string[] = [];
    createInterface({ input: child.stderr }).on('line', (line) => {
      output.push(line);
      if (line.startsWith('imported ')) say(`ironless: ${line}`);
    });
    createInterface({ input: child.stdout }).on('line', (line) => output.push(line));
    const code = await new Promise<number | null>((resolve, reject) => child.on('error', reject).on('close', resolve));
    if (code !== 0) throw new Error(`ironless fleet import exited ${code}:\n${output.slice(-40).join('\n')}`);
    return `ironless fleet import (BatchWriteItem, 16 requests at once) of ${count} nodes, as its own process`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
