/**
 * How the stack serves the web console on AWS: `/ui` and `/ui/{proxy+}` of the API itself (one
 * origin with the API, so the page's requests carry the same http_basic credentials and need no
 * CORS) answered by the `ui` function's alias `live` without the authorizer; the function holds the
 * console's files and nothing else (no table, queue or secret). Its bundle is what the stack
 * deploys, and it serves the built page.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { BUNDLE_FILE, bundleFunctionSync } from '../../lib/bundling';
import { IronlessStack } from '../../lib/ironless-stack';

const stack = new IronlessStack(new App(), 'Console', { settings: { authStrategy: 'http_basic' } });
const template = Template.fromStack(stack);

type Resource = { Properties: Record<string, unknown> };
const resources = (type: string) => Object.entries(template.findResources(type)) as [string, Resource][];

function pathOf(ref: unknown): string {
  const id = (ref as { Ref?: string }).Ref;
  const part = resources('AWS::ApiGateway::Resource').find(([rid]) => rid === id)?.[1].Properties;
  return part ? `${pathOf(part.ParentId)}/${String(part.PathPart)}` : '';
}

const uiFunctionId = resources('AWS::Lambda::Function').find(([, f]) => String(f.Properties.Description).startsWith('Ironless ui '))?.[0];

it('serves /ui and everything under it with GET, without the authorizer, from the ui function’s live alias', () => {
  const methods = resources('AWS::ApiGateway::Method').filter(([, m]) => pathOf(m.Properties.ResourceId).startsWith('/ui'));
  expect(methods.map(([, m]) => [pathOf(m.Properties.ResourceId), m.Properties.HttpMethod, m.Properties.AuthorizationType]).sort()).toEqual(
    [
      ['/ui', 'GET', 'NONE'],
      ['/ui/{proxy+}', 'GET', 'NONE'],
    ],
  );
  const alias = resources('AWS::Lambda::Alias').find(([, a]) => JSON.stringify(a.Properties.FunctionName).includes(String(uiFunctionId)));
  expect(alias).toBeDefined();
  for (const [, method] of methods) {
    const integration = method.Properties.Integration as { Type: string; Uri: unknown };
    expect(integration.Type).toBe('AWS_PROXY');
    expect(JSON.stringify(integration.Uri)).toContain(String(alias?.[0]));
  }
  // Every other route still passes the authorizer.
  const secured = resources('AWS::ApiGateway::Method').filter(
    ([, m]) => pathOf(m.Properties.ResourceId).endsWith('{proxy+}') && !pathOf(m.Properties.ResourceId).startsWith('/ui'),
  );
  expect(secured.length).toBeGreaterThan(0);
  for (const [, m] of secured) expect(m.Properties.AuthorizationType).toBe('CUSTOM');
});

it('gives the ui function no access to anything but its logs', () => {
  const fn = resources('AWS::Lambda::Function').find(([id]) => id === uiFunctionId)?.[1];
  expect(fn?.Properties).toMatchObject({ Runtime: 'nodejs22.x', Environment: { Variables: { NODE_OPTIONS: '--enable-source-maps' } } });
  expect(Object.keys((fn?.Properties.Environment as { Variables: object }).Variables)).toEqual(['NODE_OPTIONS']);
  const role = JSON.stringify((fn?.Properties.Role as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0]);
  const policies = resources('AWS::IAM::Policy').filter(([, p]) => JSON.stringify(p.Properties.Roles).includes(role.replace(/"/g, '')));
  const actions = policies.flatMap(([, p]) =>
    (p.Properties.PolicyDocument as { Statement: { Action: unknown }[] }).Statement.flatMap((s) => [s.Action].flat()),
  );
  expect(actions.every((a) => String(a).startsWith('xray:'))).toBe(true);
});

it('names the console’s address in an output', () => {
  template.hasOutput('ConsoleUrl', { Value: Match.objectLike({ 'Fn::Join': Match.anyValue() }) });
  expect(JSON.stringify(template.findOutputs('ConsoleUrl'))).toContain('ui/');
});

it('deploys a bundle that serves the built console: the page, its script and stylesheet, nothing from elsewhere', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ironless-ui-bundle-'));
  try {
    bundleFunctionSync('ui', dir);
    const { handler } = (await import(pathToFileURL(join(dir, BUNDLE_FILE)).href)) as {
      handler: (e: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;
    };
    const get = (path: string) => handler({ path, httpMethod: 'GET', headers: {} } as unknown as APIGatewayProxyEvent);
    const page = await get('/ui/');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<script type="module" src="app.js">');
    expect(page.body).toContain('<link rel="stylesheet" href="app.css"');
    const script = await get('/ui/app.js');
    expect([script.statusCode, script.headers?.['Content-Type']]).toEqual([200, 'text/javascript; charset=utf-8']);
    expect(script.body.length).toBeGreaterThan(10_000);
    expect(script.body).not.toMatch(/https?:\/\/(?!www\.w3\.org)[a-z0-9.-]+\//i);
    expect((await get('/ui/app.css')).statusCode).toBe(200);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
