/**
 * The local stack's Lambda management API through the real `@aws-sdk/client-lambda`: code and
 * configuration of $LATEST, published versions, weighted aliases, preconditions and tags, as an
 * upgrade drives them on AWS.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateAliasCommand,
  GetAliasCommand,
  GetFunctionCommand,
  GetFunctionConfigurationCommand,
  InvokeCommand,
  LambdaClient,
  ListAliasesCommand,
  ListTagsCommand,
  ListVersionsByFunctionCommand,
  PublishVersionCommand,
  TagResourceCommand,
  UntagResourceCommand,
  UpdateAliasCommand,
  UpdateFunctionCodeCommand,
  UpdateFunctionConfigurationCommand,
} from '@aws-sdk/client-lambda';
import { strToU8, zipSync } from 'fflate';
import { LambdaHost } from '../../local/lambda-host';
import type { LocalStack } from '../../local/stack';
import { startStack } from './helpers/stack';

let stack: LocalStack;
let lambda: LambdaClient;
let dir: string;

/** A handler answering what it is and what its environment says. */
function handlerSource(release: string): string {
  return `export const handler = async () => ({ release: '${release}', colour: process.env.COLOUR ?? null, version: process.env.AWS_LAMBDA_FUNCTION_VERSION });\n`;
}

async function invoke(
  name: string,
  qualifier?: string,
): Promise<{ body: { release: string; colour: string | null; version: string }; executed: string | undefined }> {
  const out = await lambda.send(new InvokeCommand({ FunctionName: name, Qualifier: qualifier }));
  expect(out.FunctionError).toBeUndefined();
  return { body: JSON.parse(Buffer.from(out.Payload ?? []).toString('utf8')), executed: out.ExecutedVersion };
}

function createFunction(name: string, release = 'one'): void {
  writeFileSync(join(dir, `${name}.mjs`), handlerSource(release));
  stack.lambda.createFunction({
    name,
    bundle: join(dir, `${name}.mjs`),
    handler: 'index.handler',
    env: { COLOUR: 'blue' },
    timeoutSeconds: 10,
  });
}

beforeAll(async () => {
  stack = await startStack();
  dir = mkdtempSync(join(tmpdir(), 'ironless-lambda-api-'));
  lambda = new LambdaClient({
    endpoint: stack.endpoints.aws,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
});

afterAll(async () => {
  lambda?.destroy();
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('versions', () => {
  it('publish $LATEST as it is, and publish nothing new while it has not changed', async () => {
    createFunction('plain');
    const latest = await lambda.send(new GetFunctionConfigurationCommand({ FunctionName: 'plain' }));
    expect(latest).toMatchObject({
      FunctionName: 'plain',
      FunctionArn: LambdaHost.arn('plain', '$LATEST'),
      Version: '$LATEST',
      Timeout: 10,
      MemorySize: 512,
      Environment: { Variables: { COLOUR: 'blue' } },
      State: 'Active',
      LastUpdateStatus: 'Successful',
    });
    const v1 = await lambda.send(new PublishVersionCommand({ FunctionName: 'plain', CodeSha256: latest.CodeSha256 }));
    expect(v1).toMatchObject({ Version: '1', CodeSha256: latest.CodeSha256, FunctionArn: LambdaHost.arn('plain', '1') });
    expect((await lambda.send(new PublishVersionCommand({ FunctionName: 'plain' }))).Version).toBe('1');
    const listed = await lambda.send(new ListVersionsByFunctionCommand({ FunctionName: 'plain' }));
    expect(listed.Versions?.map((v) => v.Version)).toEqual(['$LATEST', '1']);
  });

  it('run new code uploaded as a zip once it is published, leaving the published version as it was', async () => {
    createFunction('coded', 'one');
    const before = await lambda.send(new PublishVersionCommand({ FunctionName: 'coded' }));
    const zip = zipSync({
      'index.mjs': strToU8(handlerSource('two')),
      'index.mjs.map': strToU8('{"version":3,"sources":[],"mappings":""}'),
    });
    const updated = await lambda.send(new UpdateFunctionCodeCommand({ FunctionName: 'coded', ZipFile: zip }));
    expect(updated.Version).toBe('$LATEST');
    expect(updated.CodeSha256).not.toBe(before.CodeSha256);
    expect((await invoke('coded')).body.release).toBe('two');
    expect((await invoke('coded', '1')).body.release).toBe('one');
    const v2 = await lambda.send(new PublishVersionCommand({ FunctionName: 'coded', CodeSha256: updated.CodeSha256 }));
    expect(v2.Version).toBe('2');
    expect(await invoke('coded', '2')).toEqual({ body: { release: 'two', colour: 'blue', version: '2' }, executed: '2' });
    const withPublish = await lambda.send(
      new UpdateFunctionCodeCommand({
        FunctionName: 'coded',
        ZipFile: zipSync({ 'index.mjs': strToU8(handlerSource('three')) }),
        Publish: true,
      }),
    );
    expect(withPublish.Version).toBe('3');
    expect((await invoke('coded', '3')).body.release).toBe('three');
  });

  it('give a new configuration to the versions published after it only, its variables replacing all of them', async () => {
    createFunction('configured');
    await lambda.send(new PublishVersionCommand({ FunctionName: 'configured' }));
    const updated = await lambda.send(
      new UpdateFunctionConfigurationCommand({ FunctionName: 'configured', Environment: { Variables: { OTHER: 'x' } }, Timeout: 20 }),
    );
    expect(updated).toMatchObject({ Environment: { Variables: { OTHER: 'x' } }, Timeout: 20 });
    const v2 = await lambda.send(new PublishVersionCommand({ FunctionName: 'configured' }));
    expect(v2).toMatchObject({ Version: '2', Timeout: 20 });
    expect((await invoke('configured', '1')).body.colour).toBe('blue');
    expect((await invoke('configured', '2')).body.colour).toBeNull();
    const one = await lambda.send(new GetFunctionConfigurationCommand({ FunctionName: 'configured', Qualifier: '1' }));
    expect(one).toMatchObject({ Version: '1', Timeout: 10, Environment: { Variables: { COLOUR: 'blue' } } });
  });

  it('refuse to publish or update when the caller’s CodeSha256 or RevisionId is not $LATEST’s (412)', async () => {
    createFunction('guarded');
    const latest = await lambda.send(new GetFunctionConfigurationCommand({ FunctionName: 'guarded' }));
    await expect(lambda.send(new PublishVersionCommand({ FunctionName: 'guarded', CodeSha256: 'bm90IHRoZSBjb2Rl' }))).rejects.toMatchObject(
      {
        name: 'PreconditionFailedException',
        $metadata: { httpStatusCode: 412 },
      },
    );
    await lambda.send(new UpdateFunctionConfigurationCommand({ FunctionName: 'guarded', Timeout: 30, RevisionId: latest.RevisionId }));
    await expect(
      lambda.send(new UpdateFunctionConfigurationCommand({ FunctionName: 'guarded', Timeout: 40, RevisionId: latest.RevisionId })),
    ).rejects.toMatchObject({ name: 'PreconditionFailedException' });
    await expect(lambda.send(new PublishVersionCommand({ FunctionName: 'guarded', RevisionId: latest.RevisionId }))).rejects.toMatchObject({
      name: 'PreconditionFailedException',
    });
    await expect(lambda.send(new GetFunctionConfigurationCommand({ FunctionName: 'missing' }))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
      $metadata: { httpStatusCode: 404 },
    });
  });
});

describe('aliases', () => {
  beforeAll(async () => {
    createFunction('weighted', 'one');
    await lambda.send(new PublishVersionCommand({ FunctionName: 'weighted' }));
    await lambda.send(
      new UpdateFunctionCodeCommand({ FunctionName: 'weighted', ZipFile: zipSync({ 'index.mjs': strToU8(handlerSource('two')) }) }),
    );
    await lambda.send(new PublishVersionCommand({ FunctionName: 'weighted' }));
  });

  it('route a weighted share of the invocations to the extra version, and say which version ran', async () => {
    const created = await lambda.send(
      new CreateAliasCommand({
        FunctionName: 'weighted',
        Name: 'live',
        FunctionVersion: '1',
        RoutingConfig: { AdditionalVersionWeights: { '2': 0.3 } },
      }),
    );
    expect(created).toMatchObject({
      AliasArn: LambdaHost.arn('weighted', 'live'),
      FunctionVersion: '1',
      RoutingConfig: { AdditionalVersionWeights: { '2': 0.3 } },
    });
    const executed = { '1': 0, '2': 0 } as Record<string, number>;
    for (let batch = 0; batch < 20; batch++) {
      const results = await Promise.all(Array.from({ length: 50 }, () => invoke('weighted', 'live')));
      for (const { body, executed: version } of results) {
        executed[version as string] = (executed[version as string] ?? 0) + 1;
        expect(body.release).toBe(version === '2' ? 'two' : 'one');
      }
    }
    expect(executed['1']! + executed['2']!).toBe(1000);
    // 300 expected; the standard deviation of the count is about 14.5.
    expect(Math.abs(executed['2']! - 300)).toBeLessThan(75);
  });

  it('move an alias with UpdateAlias, guarded by its RevisionId, and list and read it back', async () => {
    const current = await lambda.send(new GetAliasCommand({ FunctionName: 'weighted', Name: 'live' }));
    const moved = await lambda.send(
      new UpdateAliasCommand({
        FunctionName: 'weighted',
        Name: 'live',
        FunctionVersion: '2',
        RoutingConfig: { AdditionalVersionWeights: {} },
        RevisionId: current.RevisionId,
      }),
    );
    expect(moved.FunctionVersion).toBe('2');
    expect(moved.RoutingConfig).toBeUndefined();
    await expect(
      lambda.send(new UpdateAliasCommand({ FunctionName: 'weighted', Name: 'live', FunctionVersion: '1', RevisionId: current.RevisionId })),
    ).rejects.toMatchObject({ name: 'PreconditionFailedException', $metadata: { httpStatusCode: 412 } });
    expect(await invoke('weighted', 'live')).toMatchObject({ executed: '2' });
    const listed = await lambda.send(new ListAliasesCommand({ FunctionName: 'weighted', FunctionVersion: '2' }));
    expect(listed.Aliases?.map((a) => a.Name)).toEqual(['live']);
  });

  it.each([
    ['a weight of 1', { '2': 1 }, 'InvalidParameterValueException', 400],
    ['a negative weight', { '2': -0.1 }, 'InvalidParameterValueException', 400],
    ['two extra versions', { '2': 0.1, '3': 0.1 }, 'InvalidParameterValueException', 400],
    ['$LATEST as the extra version', { $LATEST: 0.1 }, 'InvalidParameterValueException', 400],
    ['a version that does not exist', { '9': 0.1 }, 'ResourceNotFoundException', 404],
  ])('refuse routing with %s', async (_, weights, name, status) => {
    await expect(
      lambda.send(
        new UpdateAliasCommand({
          FunctionName: 'weighted',
          Name: 'live',
          FunctionVersion: '1',
          RoutingConfig: { AdditionalVersionWeights: weights },
        }),
      ),
    ).rejects.toMatchObject({ name, $metadata: { httpStatusCode: status } });
    expect((await lambda.send(new GetAliasCommand({ FunctionName: 'weighted', Name: 'live' }))).FunctionVersion).toBe('2');
  });

  it('answer 404 for an alias that does not exist', async () => {
    await expect(lambda.send(new GetAliasCommand({ FunctionName: 'weighted', Name: 'canary' }))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
      $metadata: { httpStatusCode: 404 },
    });
  });
});

describe('tags', () => {
  it('keep tags on the function’s ARN, the stack’s functions tagged with the running release', async () => {
    const arn = LambdaHost.arn('conductor');
    expect((await lambda.send(new ListTagsCommand({ Resource: arn }))).Tags).toEqual({ 'ironless:release': 'master' });
    await lambda.send(new TagResourceCommand({ Resource: arn, Tags: { 'ironless:release': '2026.4', owner: 'ops' } }));
    expect((await lambda.send(new ListTagsCommand({ Resource: arn }))).Tags).toEqual({ 'ironless:release': '2026.4', owner: 'ops' });
    await lambda.send(new UntagResourceCommand({ Resource: arn, TagKeys: ['owner'] }));
    expect((await lambda.send(new GetFunctionCommand({ FunctionName: 'conductor' }))).Tags).toEqual({ 'ironless:release': '2026.4' });
    await expect(lambda.send(new ListTagsCommand({ Resource: LambdaHost.arn('conductor', 'live') }))).rejects.toMatchObject({
      name: 'InvalidParameterValueException',
    });
  });

  it('show the stack’s functions on their live alias, at version 1', async () => {
    const alias = await lambda.send(new GetAliasCommand({ FunctionName: 'api', Name: 'live' }));
    expect(alias).toMatchObject({ FunctionVersion: '1', AliasArn: LambdaHost.arn('api', 'live') });
    const fn = await lambda.send(new GetFunctionCommand({ FunctionName: 'api', Qualifier: '1' }));
    expect(fn.Configuration).toMatchObject({ Version: '1', Handler: 'index.handler', State: 'Active' });
    const viaAlias = await lambda.send(new GetFunctionConfigurationCommand({ FunctionName: 'api', Qualifier: 'live' }));
    expect(viaAlias).toMatchObject({ Version: '1', FunctionArn: LambdaHost.arn('api', 'live'), CodeSha256: fn.Configuration?.CodeSha256 });
  });
});
