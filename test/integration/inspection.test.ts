/**
 * In-band inspection on the local stack, nothing faked but the hardware: redfish nodes of the
 * virtual fleet with the `agent` inspect interface, whose agent ISO is built to inspect (it posts
 * the machine's inventory to /v1/continue_inspection at boot, as IPA with
 * ipa-inspection-callback-url). The inspection ends with the node's properties and ports set, the
 * inventory served by GET /v1/nodes/{node}/inventory (1.81) and the machine off; a failing
 * ramdisk, an abort and the inspect wait timeout fail it with Ironic's messages. The ramdisk's
 * `logs` are kept as Ironic keeps them (default on_failure): a failed inspection leaves them in the
 * ramdisk logs bucket, labelled `inspect`; a successful one leaves none under a node's name.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import type { LocalStack } from '../../local/stack';
import { LambdaHost } from '../../local/lambda-host';
import { readTarGz } from '../helpers/tar';
import { ApiClient, faultOf, startStack } from './helpers/stack';

let stack: LocalStack;
let api: ApiClient;
let db: DynamoDBDocumentClient;
let s3: S3Client;

const INSPECT_WAIT_TIMEOUT = 8;

beforeAll(async () => {
  stack = await startStack({
    fleet: { count: 4, prefix: 'insp', inspection: true, inspectionRetryMs: 300 },
    // Beyond Ironic's default hooks, those that set memory_mb, cpus, local_gb and the boot mode.
    settings: { inspectWaitTimeoutSeconds: INSPECT_WAIT_TIMEOUT, inspectorHooks: '$default_hooks,memory,cpus,root-device,boot-mode' },
  });
  api = new ApiClient(stack.url, '1.87');
  s3 = new S3Client({
    endpoint: stack.endpoints.s3,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'l', secretAccessKey: 'l' },
  });
  db = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint: stack.endpoints.dynamodb,
      region: 'us-east-1',
      credentials: { accessKeyId: 'l', secretAccessKey: 'l' },
    }),
  );
}, 120_000);

afterAll(async () => {
  s3?.destroy();
  db?.destroy();
  await stack?.stop();
});

/** A fleet node moved to manageable with the agent inspect interface. */
async function manageable(name: string): Promise<string> {
  const patched = await api.request('PATCH', `/v1/nodes/${name}`, [{ op: 'replace', path: '/inspect_interface', value: 'agent' }]);
  expect(patched.status).toBe(200);
  await api.provision(name, 'manage');
  await api.settle(name, ['manageable'], 60_000);
  return patched.body.uuid as string;
}

/** The keys of the ramdisk logs bucket named after the node (not the API's staged copies under pending/). */
async function logsOf(uuid: string): Promise<string[]> {
  const listed = await s3.send(new ListObjectsV2Command({ Bucket: stack.ramdiskLogsBucket, Prefix: `${uuid}_` }));
  return (listed.Contents ?? []).map((o) => o.Key as string);
}

async function runPeriodic(task: string): Promise<unknown> {
  const result = await stack.lambda.invoke(LambdaHost.arn('conductor', 'live'), { entry: 'periodic', task });
  return JSON.parse((result as { payload: string }).payload);
}

it('inspects a redfish node in band: properties, ports, the inventory apart from the node, the machine off', async () => {
  const uuid = await manageable('insp-0');
  const machine = stack.fleet!.machine('insp-0');
  const none = await api.get(`/v1/nodes/${uuid}/inventory`);
  expect([none.status, faultOf(none).faultstring]).toEqual([404, `Node inventory record for node ${uuid} could not be found.`]);

  await api.provision(uuid, 'inspect');
  const node = await api.settle(uuid, ['manageable', 'inspect failed'], 90_000);
  expect(node).toMatchObject({ provision_state: 'manageable', last_error: null, power_state: 'power off' });
  expect(node.properties).toMatchObject({ cpu_arch: 'x86_64', memory_mb: 16384, cpus: 8, local_gb: 99, capabilities: 'boot_mode:uefi' });
  expect(node.inspection_finished_at).not.toBeNull();
  expect(machine.powerState).toBe('Off');
  expect(machine.media.Cd.inserted).toBe(false);
  // The machine booted the agent ISO once, from the virtual CD.
  expect(machine.boots.filter((b) => b.device === 'Cd').length).toBe(1);

  const ports = (await api.get(`/v1/ports?node=${uuid}&detail=true`)).body.ports as { address: string; pxe_enabled: boolean }[];
  expect(ports.map((p) => p.address).sort()).toEqual(machine.spec.nics.map((n) => n.mac).sort());

  const inventory = await api.get(`/v1/nodes/${uuid}/inventory`);
  expect(inventory.status).toBe(200);
  expect(Object.keys(inventory.body).sort()).toEqual(['inventory', 'plugin_data']);
  expect(inventory.body.inventory).toMatchObject({
    cpu: { count: 8, architecture: 'x86_64' },
    memory: { physical_mb: 16384 },
    disks: [{ name: '/dev/sda', size: 100 * 1024 ** 3 }],
    boot: { current_boot_mode: 'uefi' },
  });
  expect(inventory.body.plugin_data).toMatchObject({ local_gb: 99, error: null, root_disk: { name: '/dev/sda' } });
  expect(inventory.body.plugin_data.logs).toBeUndefined();
  // on_failure: the logs of an inspection that went well are not kept.
  expect(await logsOf(uuid)).toEqual([]);
  const old = await new ApiClient(stack.url, '1.80').get(`/v1/nodes/${uuid}/inventory`);
  expect(old.status).toBe(404);

  // Inspected again: the inventory is replaced, the ports stay as they are.
  await api.provision(uuid, 'inspect');
  await api.settle(uuid, ['manageable', 'inspect failed'], 90_000);
  expect((await api.get(`/v1/ports?node=${uuid}`)).body.ports).toHaveLength(2);

  // The inventory goes with its node.
  const item = () => db.send(new GetCommand({ TableName: stack.tables.node_inventory, Key: { node_uuid: uuid }, ConsistentRead: true }));
  expect((await item()).Item).toMatchObject({ node_uuid: uuid, version: '1.0' });
  expect((await api.request('DELETE', `/v1/nodes/${uuid}`)).status).toBe(204);
  expect((await item()).Item).toBeUndefined();
}, 240_000);

it("fails the inspection when the ramdisk reports an error, with Ironic's message and a history event", async () => {
  const uuid = await manageable('insp-1');
  stack.fleet!.machine('insp-1').setAgentFaults({ failStep: 'inspect' });
  await api.provision(uuid, 'inspect');
  const node = await api.settle(uuid, ['manageable', 'inspect failed'], 90_000);
  expect(node.provision_state).toBe('inspect failed');
  expect(node.last_error).toMatch(
    /^Failed to finish inspection: Failed to inspect hardware\. Reason: failed to run inspection hooks: .*Error in preprocess hook ramdisk-error: Failed to inspect hardware\. Reason: Ramdisk reported error: collector default failed: injected failure of inspection on insp-1$/s,
  );
  expect(stack.fleet!.machine('insp-1').powerState).toBe('Off');
  expect((await api.get(`/v1/nodes/${uuid}/inventory`)).status).toBe(404);
  const history = (await api.get(`/v1/nodes/${uuid}/history?detail=true`)).body.history as { event_type: string; severity: string }[];
  expect(history.at(-1)).toMatchObject({ event_type: 'introspection', severity: 'ERROR' });
  // The logs the ramdisk posted, kept under Ironic's name with the label inspect.
  const keys = await logsOf(uuid);
  expect(keys).toEqual([expect.stringMatching(new RegExp(`^${uuid}_insp-1_inspect_\\d{4}(-\\d\\d){5}\\.tar\\.gz$`))]);
  const archive = await s3.send(new GetObjectCommand({ Bucket: stack.ramdiskLogsBucket, Key: keys[0] }));
  expect(readTarGz(Buffer.from(await archive.Body!.transformToByteArray())).journal).toContain('starting on insp-1');
  stack.fleet!.machine('insp-1').setAgentFaults({});
  // From inspect failed, inspect again.
  await api.provision(uuid, 'inspect');
  expect(await api.settle(uuid, ['manageable', 'inspect failed'], 90_000)).toMatchObject({ provision_state: 'manageable' });
}, 240_000);

it('abort from inspect wait fails the inspection and takes the ramdisk away', async () => {
  const uuid = await manageable('insp-2');
  const machine = stack.fleet!.machine('insp-2');
  machine.setAgentFaults({ crash: true }); // the ramdisk never posts
  await api.provision(uuid, 'inspect');
  await api.settle(uuid, ['inspect wait'], 60_000);
  // The conductor holds the node while it powers the machine on (an abort meanwhile is a 409).
  await waitUntil(async () => (await api.get(`/v1/nodes/${uuid}`)).body.reservation === null);
  expect(machine.powerState).toBe('On');
  await api.provision(uuid, 'abort');
  const node = await api.settle(uuid, ['inspect failed'], 60_000);
  expect(node.last_error).toBe('Inspection was aborted by request.');
  await waitUntil(async () => (await api.get(`/v1/nodes/${uuid}`)).body.reservation === null);
  expect(machine.powerState).toBe('Off');
  expect(machine.media.Cd.inserted).toBe(false);
  const history = (await api.get(`/v1/nodes/${uuid}/history?detail=true`)).body.history as { event: string; event_type: string }[];
  expect(history.at(-1)).toMatchObject({ event: 'Inspection was aborted by request.', event_type: 'introspection' });
  machine.setAgentFaults({});
}, 180_000);

it('fails a node that waits longer than the inspect wait timeout', async () => {
  const uuid = await manageable('insp-3');
  const machine = stack.fleet!.machine('insp-3');
  machine.setAgentFaults({ crash: true });
  await api.provision(uuid, 'inspect');
  await api.settle(uuid, ['inspect wait'], 60_000);
  await new Promise((resolve) => setTimeout(resolve, INSPECT_WAIT_TIMEOUT * 1000 + 500));
  expect(await runPeriodic('fail_timed_out_waits')).toEqual({ failed: 1 });
  const node = (await api.get(`/v1/nodes/${uuid}`)).body;
  expect(node).toMatchObject({
    provision_state: 'inspect failed',
    last_error:
      'Timeout reached while inspecting the node. Please check if the ramdisk responsible for the inspection is running on the node.',
  });
  expect(machine.powerState).toBe('Off');
  machine.setAgentFaults({});
}, 180_000);

async function waitUntil(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
