/**
 * Lambda's management API (REST JSON, as `@aws-sdk/client-lambda` sends it) over the local Lambda
 * host: functions' code and configuration, versions, aliases and tags. The paths, methods, status
 * codes and member names are the SDK's (its AwsRestJsonProtocol schemas); errors are Lambda's
 * (lambda-routing.ts `LambdaServiceError`), mapped to HTTP by the endpoint.
 */
import { unzipSync } from 'fflate';
import { type AliasConfig, LambdaHost, REGION, type VersionConfig, parseRef } from './lambda-host';
import { invalid } from './lambda-routing';

export interface ApiReply {
  readonly status: number;
  readonly body?: unknown;
}

/**
 * The package files UpdateFunctionCode keeps: every file of the zip, as Lambda does (the bundle, its
 * source map, its chunks and files the code reads below LAMBDA_TASK_ROOT, such as isolinux or the
 * agent API CA), but no folder entry and no path leaving the code folder.
 */
const isPackageFile = (name: string) => name !== '' && !name.endsWith('/') && !name.startsWith('/') && !name.split('/').includes('..');

/** FunctionConfiguration, as GetFunctionConfiguration, PublishVersion and the Update* calls answer it. */
export function functionConfiguration(name: string, c: VersionConfig, qualifier = c.version): Record<string, unknown> {
  return {
    FunctionName: name,
    // As Lambda: the ARN the caller named (an alias's), the version that alias points to.
    FunctionArn: LambdaHost.arn(name, qualifier),
    Runtime: 'nodejs22.x',
    Role: `arn:aws:iam::000000000000:role/${name}`,
    Handler: 'index.handler',
    CodeSize: c.codeSize,
    Description: c.description,
    Timeout: c.timeoutSeconds,
    MemorySize: c.memoryMb,
    LastModified: c.lastModified,
    CodeSha256: c.codeSha256,
    Version: c.version,
    Environment: { Variables: { ...c.env } },
    RevisionId: c.revisionId,
    State: 'Active',
    LastUpdateStatus: 'Successful',
    PackageType: 'Zip',
    Architectures: ['x86_64'],
  };
}

function aliasConfiguration(name: string, a: AliasConfig): Record<string, unknown> {
  return {
    AliasArn: LambdaHost.arn(name, a.name),
    Name: a.name,
    FunctionVersion: a.version,
    Description: a.description,
    ...(Object.keys(a.weights).length > 0 ? { RoutingConfig: { AdditionalVersionWeights: { ...a.weights } } } : {}),
    RevisionId: a.revisionId,
  };
}

/** A page of `items` after `marker` (an offset, as the local stack writes NextMarker). */
function page<T>(items: T[], query: URLSearchParams): { items: T[]; next: string | undefined } {
  const from = Number(query.get('Marker') ?? '0');
  const max = Number(query.get('MaxItems') ?? '50');
  if (!Number.isInteger(from) || from < 0) throw invalid(`Invalid marker: ${query.get('Marker')}`);
  if (!Number.isInteger(max) || max < 1 || max > 10000) throw invalid(`MaxItems must be between 1 and 10000: ${query.get('MaxItems')}`);
  const items_ = items.slice(from, from + max);
  return { items: items_, next: from + max < items.length ? String(from + max) : undefined };
}

type Body = Record<string, unknown>;

function parse(body: string): Body {
  if (body === '') return {};
  try {
    const parsed = JSON.parse(body) as unknown;
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Body;
  } catch {
    // answered below
  }
  throw invalid('Could not parse request body into json');
}

function optionalString(body: Body, key: string): string | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw invalid(`${key} must be a string`);
  return value;
}

function optionalNumber(body: Body, key: string): number | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number') throw invalid(`${key} must be a number`);
  return value;
}

function weightsOf(body: Body): Record<string, number> | undefined {
  const routing = body.RoutingConfig as { AdditionalVersionWeights?: Record<string, number> } | undefined;
  if (routing === undefined || routing === null) return undefined;
  return { ...(routing.AdditionalVersionWeights ?? {}) };
}

/** The files of UpdateFunctionCode's ZipFile (base64 in the JSON body). */
function unzipPackage(base64: string): Record<string, Uint8Array> {
  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipSync(Buffer.from(base64, 'base64'), { filter: (f) => isPackageFile(f.name) });
  } catch (err) {
    throw invalid(`Could not unzip uploaded file. Please check your file, then try to upload again: ${(err as Error).message}`);
  }
  if (entries['index.mjs'] === undefined) throw invalid('The code package holds no index.mjs');
  return entries;
}

/** Serve a Lambda management call, or undefined when `path` is none of them. */
export function lambdaApi(host: LambdaHost, method: string, path: string, query: URLSearchParams, rawBody: string): ApiReply | undefined {
  const tags = /^\/2017-03-31\/tags\/(.+)$/.exec(path);
  if (tags) return tagsApi(host, method, decodeURIComponent(tags[1] as string), query, rawBody);
  const match = /^\/2015-03-31\/functions\/([^/]+)(?:\/(configuration|code|versions|aliases)(?:\/([^/]+))?)?$/.exec(path);
  if (match === null) return undefined;
  const ref = parseRef(decodeURIComponent(match[1] as string), query.get('Qualifier') ?? undefined);
  const name = ref.name;
  const [resource, child] = [match[2], match[3] === undefined ? undefined : decodeURIComponent(match[3])];
  const body = parse(rawBody);
  const config = (c: VersionConfig, qualifier?: string) => functionConfiguration(name, c, qualifier);
  switch (`${method} ${resource ?? ''}${child === undefined ? '' : '/'}`) {
    case 'GET ': {
      const c = host.configuration(name, ref.qualifier);
      return {
        status: 200,
        body: {
          Configuration: config(c, ref.qualifier),
          Code: {
            RepositoryType: 'S3',
            Location: `https://awslambda-${REGION}-tasks.s3.${REGION}.amazonaws.com/local/${name}/${c.version}`,
          },
          Tags: Object.fromEntries(host.tags(LambdaHost.arn(name))),
        },
      };
    }
    case 'GET configuration':
      return { status: 200, body: config(host.configuration(name, ref.qualifier), ref.qualifier) };
    case 'PUT configuration': {
      const environment = body.Environment as { Variables?: Record<string, string> } | undefined;
      const updated = host.updateFunctionConfiguration(name, {
        ...(environment === undefined ? {} : { env: { ...(environment.Variables ?? {}) } }),
        timeoutSeconds: optionalNumber(body, 'Timeout'),
        memoryMb: optionalNumber(body, 'MemorySize'),
        description: optionalString(body, 'Description'),
        revisionId: optionalString(body, 'RevisionId'),
      });
      return { status: 200, body: config(updated) };
    }
    case 'PUT code': {
      const zip = optionalString(body, 'ZipFile');
      if (zip === undefined) throw invalid('Please provide a source for function code (ZipFile): S3 and images are not served locally');
      const updated = host.updateFunctionCode(name, unzipPackage(zip), optionalString(body, 'RevisionId'));
      return { status: 200, body: config(body.Publish === true ? host.publish(name) : updated) };
    }
    case 'POST versions': {
      const published = host.publish(name, {
        codeSha256: optionalString(body, 'CodeSha256'),
        revisionId: optionalString(body, 'RevisionId'),
        description: optionalString(body, 'Description'),
      });
      return { status: 201, body: config(published) };
    }
    case 'GET versions': {
      const { items, next } = page(host.listVersions(name), query);
      return { status: 200, body: { Versions: items.map((c) => config(c)), ...(next ? { NextMarker: next } : {}) } };
    }
    case 'POST aliases': {
      const alias = optionalString(body, 'Name') ?? '';
      const version = optionalString(body, 'FunctionVersion') ?? '';
      const created = host.createAlias(name, alias, version, weightsOf(body), optionalString(body, 'Description'));
      return { status: 201, body: aliasConfiguration(name, created) };
    }
    case 'GET aliases': {
      const { items, next } = page(host.listAliases(name, query.get('FunctionVersion') ?? undefined), query);
      return { status: 200, body: { Aliases: items.map((a) => aliasConfiguration(name, a)), ...(next ? { NextMarker: next } : {}) } };
    }
    case 'GET aliases/':
      return { status: 200, body: aliasConfiguration(name, host.alias(name, child as string)) };
    case 'PUT aliases/': {
      const updated = host.updateAlias(name, child as string, {
        version: optionalString(body, 'FunctionVersion'),
        weights: weightsOf(body),
        description: optionalString(body, 'Description'),
        revisionId: optionalString(body, 'RevisionId'),
      });
      return { status: 200, body: aliasConfiguration(name, updated) };
    }
    default:
      return undefined;
  }
}

/** TagResource, UntagResource and ListTags, on a function's unqualified ARN. */
function tagsApi(host: LambdaHost, method: string, arn: string, query: URLSearchParams, rawBody: string): ApiReply | undefined {
  const tags = host.tags(arn);
  switch (method) {
    case 'GET':
      return { status: 200, body: { Tags: Object.fromEntries(tags) } };
    case 'POST': {
      const given = parse(rawBody).Tags;
      if (typeof given !== 'object' || given === null) throw invalid('Tags are required');
      for (const [key, value] of Object.entries(given as Record<string, unknown>)) {
        if (typeof value !== 'string') throw invalid(`The value of tag ${key} must be a string`);
        tags.set(key, value);
      }
      return { status: 204 };
    }
    case 'DELETE':
      for (const key of query.getAll('tagKeys')) tags.delete(key);
      return { status: 204 };
    default:
      return undefined;
  }
}
