import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { IronlessStack } from '../../lib/ironless-stack';
import { acknowledgeFindings } from '../../lib/nag';
import { DEFAULT_SETTINGS } from '../../lib/settings';
import { TABLES, tableOutputKey } from '../../functions/db/schema';
import { FUNCTIONS } from '../../lib/bundling';
import { PERIODIC_TASKS } from '../../functions/conductor/schedules';
import { placeholders, readStepsAsl } from '../../statemachines/definitions';

// One synth for the whole file: bundling both functions takes a few seconds.
const app = new App();
const stack = new IronlessStack(app, 'Test');
acknowledgeFindings(stack);
const template = Template.fromStack(stack);
const resources = (type: string) => template.findResources(type);
const logicalIdOf = (type: string, match: (props: Record<string, unknown>) => boolean) =>
  Object.entries(resources(type)).find(([, r]) => match((r as { Properties: Record<string, unknown> }).Properties))?.[0];

/** The stack's own functions (not the custom-resource provider CDK adds). */
const IRONLESS_FUNCTION = { Properties: { Description: Match.stringLikeRegexp('^Ironless ') } };

describe('IronlessStack', () => {
  it('runs its functions (api, conductor, dbsync, ui, the http_basic authorizer, the deploy guard) on Node 22, arm64, each reached through an alias "live"', () => {
    // http_basic is the default strategy: the authorizer is deployed with it (auth.test.ts).
    const ours = Object.values(template.findResources('AWS::Lambda::Function', IRONLESS_FUNCTION)) as { Properties: unknown }[];
    expect(ours).toHaveLength(Object.keys(FUNCTIONS).length);
    expect(Object.keys(FUNCTIONS).sort()).toEqual(['api', 'authorizer', 'conductor', 'deploy-guard', 'dbsync', 'ui'].sort());
    for (const fn of ours) expect(fn.Properties).toMatchObject({ Runtime: 'nodejs22.x', Architectures: ['arm64'] });
    template.resourceCountIs('AWS::Lambda::Alias', Object.keys(FUNCTIONS).length);
    template.allResourcesProperties('AWS::Lambda::Alias', { Name: 'live' });
  });

  it('deploys each function with its own bundle', () => {
    // Each asset is the bundle of its function's entry: four functions, four different assets.
    const ours = Object.values(template.findResources('AWS::Lambda::Function', IRONLESS_FUNCTION)) as {
      Properties: { Code: { S3Key: string } };
    }[];
    expect(new Set(ours.map((f) => f.Properties.Code.S3Key)).size).toBe(Object.keys(FUNCTIONS).length);
  });

  it('beats the conductor version once at deploy time, its id changing with the version, allowed to invoke only that alias', () => {
    const [register] = Object.values(template.findResources('Custom::AWS')) as { Properties: { Create: unknown; Update: unknown } }[];
    const create = JSON.stringify(register?.Properties.Create);
    expect(create).toContain('\\"action\\":\\"invoke\\"');
    expect(create).toContain('conductor_heartbeat');
    expect(create).toContain('conductor-');
    expect(register?.Properties.Update).toEqual(register?.Properties.Create);
    const policies = Object.values(template.findResources('AWS::IAM::Policy')).map((p) => JSON.stringify(p));
    const grant = policies.find((p) => p.includes('RegisterConductor')) ?? '';
    expect(grant).toContain('lambda:InvokeFunction');
    expect(grant).toContain('ConductorLive');
    expect(grant).not.toContain('"Resource":"*"');
  });

  it('gives the dbsync function every table, the release pin, 15 minutes, and names it and the tables in outputs', () => {
    const dbsync = Object.values(resources('AWS::Lambda::Function')).find((f) =>
      String((f as { Properties: { Description?: string } }).Properties.Description).includes('functions/dbsync/'),
    ) as { Properties: { Timeout: number; Environment: { Variables: Record<string, unknown> } } } | undefined;
    expect(dbsync).toBeDefined();
    expect(dbsync?.Properties.Timeout).toBe(900);
    const variables = dbsync?.Properties.Environment.Variables ?? {};
    for (const def of Object.values(TABLES)) expect(variables[def.envVar]).toBeDefined();
    // Unpinned by default: the variable is left out, as the functions read "" when it is unset.
    expect(DEFAULT_SETTINGS.pinReleaseVersion).toBe('');
    expect(variables.PIN_RELEASE_VERSION).toBeUndefined();
    const dbsyncAlias = logicalIdOf('AWS::Lambda::Alias', (p) => JSON.stringify(p.FunctionName).includes('Dbsync')) as string;
    template.hasOutput('DbsyncFunction', { Value: { Ref: dbsyncAlias } });
    for (const name of Object.keys(TABLES)) template.hasOutput(tableOutputKey(name), { Value: Match.anyValue() });
  });

  it('routes every API path to the api alias, not the bare function (the web console’s two to the ui alias)', () => {
    const apiAlias = logicalIdOf('AWS::Lambda::Alias', (p) => JSON.stringify(p.FunctionName).includes('Api')) as string;
    const uiAlias = logicalIdOf('AWS::Lambda::Alias', (p) => JSON.stringify(p.FunctionName).includes('WebConsole')) as string;
    expect([apiAlias, uiAlias].every((a) => a !== undefined)).toBe(true);
    const methods = Object.values(resources('AWS::ApiGateway::Method')) as { Properties: { Integration: { Uri: unknown } } }[];
    const uris = methods.map((m) => JSON.stringify(m.Properties.Integration.Uri));
    expect(uris.filter((u) => u.includes(uiAlias))).toHaveLength(2);
    expect(uris.filter((u) => !u.includes(uiAlias)).length).toBeGreaterThanOrEqual(2);
    for (const uri of uris.filter((u) => !u.includes(uiAlias))) expect(uri).toContain(apiAlias);
  });

  it('maps each conductor queue to the conductor alias with partial batch responses, and gives each queue a DLQ', () => {
    const conductorAlias = logicalIdOf('AWS::Lambda::Alias', (p) => JSON.stringify(p.FunctionName).includes('Conductor')) as string;
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', DEFAULT_SETTINGS.conductorGroups.length);
    for (const mapping of Object.values(resources('AWS::Lambda::EventSourceMapping')) as { Properties: Record<string, unknown> }[]) {
      // The mapping names the alias: "<conductor function>:live".
      expect(JSON.stringify(mapping.Properties.FunctionName)).toContain(conductorAlias);
      expect(JSON.stringify(mapping.Properties.FunctionName)).toContain(':live');
      expect(mapping.Properties.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
    }
    // Each group's queue and DLQ, and the periodic tasks' failures (operations.test.ts).
    template.resourceCountIs('AWS::SQS::Queue', 2 * DEFAULT_SETTINGS.conductorGroups.length + 1);
    template.hasResourceProperties('AWS::SQS::Queue', {
      VisibilityTimeout: DEFAULT_SETTINGS.conductorTimeoutSeconds + 24,
      RedrivePolicy: { deadLetterTargetArn: Match.anyValue(), maxReceiveCount: 5 },
    });
  });

  it('creates every table of the schema: on demand, encrypted, PITR, retained, keys-only indexes', () => {
    const tables = resources('AWS::DynamoDB::GlobalTable');
    expect(Object.keys(tables)).toHaveLength(Object.keys(TABLES).length);
    for (const table of Object.values(tables) as { DeletionPolicy: string; Properties: Record<string, unknown> }[]) {
      expect(table.DeletionPolicy).toBe('Retain');
      expect(table.Properties.BillingMode).toBe('PAY_PER_REQUEST');
      expect(table.Properties.SSESpecification).toMatchObject({ SSEEnabled: true });
      const replica = (table.Properties.Replicas as Record<string, unknown>[])[0] as Record<string, unknown>;
      expect(replica.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
      for (const gsi of (table.Properties.GlobalSecondaryIndexes ?? []) as { Projection: unknown }[]) {
        expect(gsi.Projection).toEqual({ ProjectionType: 'KEYS_ONLY' });
      }
    }
    const nodes = Object.values(tables).find((t) => JSON.stringify(t).includes('"AttributeName":"uuid"')) as {
      Properties: { GlobalSecondaryIndexes: { IndexName: string }[] };
    };
    expect(nodes.Properties.GlobalSecondaryIndexes.map((g) => g.IndexName).sort()).toEqual(TABLES.nodes.indexes.map((i) => i.name).sort());
  });

  it('builds the steps machine from the ASL file with every placeholder substituted', () => {
    const machine = Object.values(resources('AWS::StepFunctions::StateMachine'))[0] as {
      Properties: { DefinitionString: unknown; DefinitionSubstitutions: Record<string, unknown> };
    };
    const text = JSON.stringify(machine.Properties.DefinitionString);
    const inFile = placeholders(readStepsAsl());
    const substituted = new Set(Object.keys(machine.Properties.DefinitionSubstitutions));
    // Numbers are filled in the text; the rest by substitution — and nothing is left over.
    for (const name of inFile) {
      if (name.endsWith('Seconds')) expect(text).not.toContain(`\${${name}}`);
      else expect(substituted.has(name)).toBe(true);
    }
    for (const name of substituted) expect(inFile.has(name)).toBe(true);
    const definition = JSON.parse(machine.Properties.DefinitionString as string) as { States: Record<string, Record<string, unknown>> };
    expect(definition.States.RunStepAsync?.HeartbeatSeconds).toBe(DEFAULT_SETTINGS.heartbeatTimeoutSeconds);
    expect(definition.States.RunStepAsync?.TimeoutSeconds).toBe(DEFAULT_SETTINGS.callbackTimeoutSeconds);
    const conductorAlias = logicalIdOf('AWS::Lambda::Alias', (p) => JSON.stringify(p.FunctionName).includes('Conductor')) as string;
    expect(machine.Properties.DefinitionSubstitutions.ConductorFunctionArn).toEqual({ Ref: conductorAlias });
  });

  it("lets the steps machine's role invoke the conductor alias and no other function", () => {
    const conductorAlias = logicalIdOf('AWS::Lambda::Alias', (p) => JSON.stringify(p.FunctionName).includes('Conductor')) as string;
    const machine = Object.values(resources('AWS::StepFunctions::StateMachine'))[0] as {
      Properties: { RoleArn: { 'Fn::GetAtt': [string, string] } };
    };
    const role = machine.Properties.RoleArn['Fn::GetAtt'][0];
    const policies = Object.values(resources('AWS::IAM::Policy')).filter((p) =>
      JSON.stringify((p as { Properties: { Roles: unknown } }).Properties.Roles).includes(role),
    );
    const invoke = policies
      .flatMap(
        (p) =>
          (p as { Properties: { PolicyDocument: { Statement: { Action: string | string[]; Resource: unknown }[] } } }).Properties
            .PolicyDocument.Statement,
      )
      .filter((s) => [s.Action].flat().includes('lambda:InvokeFunction'));
    expect(invoke.length).toBeGreaterThan(0);
    for (const statement of invoke) {
      for (const resource of [statement.Resource].flat()) expect(JSON.stringify(resource)).toContain(conductorAlias);
    }
  });

  it("lets the API scan the nodes table's shard index (GET /v1/shards) and update nodes conditionally", () => {
    const apiFunction = logicalIdOf('AWS::Lambda::Function', (p) =>
      JSON.stringify(p.Environment ?? {}).includes('CONDUCTOR_FUNCTION'),
    ) as string;
    const fn = resources('AWS::Lambda::Function')[apiFunction] as { Properties: { Role: { 'Fn::GetAtt': [string, string] } } };
    const role = fn.Properties.Role['Fn::GetAtt'][0];
    const statements = Object.values(resources('AWS::IAM::Policy'))
      .filter((p) => JSON.stringify((p as { Properties: { Roles: unknown } }).Properties.Roles).includes(role))
      .flatMap(
        (p) =>
          (p as { Properties: { PolicyDocument: { Statement: { Action: string | string[]; Resource: unknown }[] } } }).Properties
            .PolicyDocument.Statement,
      );
    const allowing = (action: string) => statements.filter((s) => [s.Action].flat().includes(action));
    const nodesTable = logicalIdOf('AWS::DynamoDB::GlobalTable', (p) => JSON.stringify(p).includes('byShard')) as string;
    const scan = allowing('dynamodb:Scan').filter((s) => JSON.stringify(s.Resource).includes(nodesTable));
    expect(JSON.stringify(scan)).toContain('/index/*');
    expect(allowing('dynamodb:PutItem').length).toBeGreaterThan(0);
  });

  it('schedules each periodic task against the conductor alias', () => {
    template.resourceCountIs('AWS::Events::Rule', Object.keys(PERIODIC_TASKS).length);
    for (const task of Object.keys(PERIODIC_TASKS)) {
      template.hasResourceProperties('AWS::Events::Rule', {
        Targets: [Match.objectLike({ Input: JSON.stringify({ entry: 'periodic', task }) })],
      });
    }
  });

  it("keeps every log group a year, encrypted with the stack's own key, retained with the stack", () => {
    const key = logicalIdOf('AWS::KMS::Key', () => true) as string;
    const groups = Object.values(resources('AWS::Logs::LogGroup')) as { DeletionPolicy: string; Properties: Record<string, unknown> }[];
    // Our functions, the two custom-resource providers (RegisterConductor's, the deploy guard's), API access logs, the steps machine.
    expect(groups).toHaveLength(Object.keys(FUNCTIONS).length + 4);
    for (const group of groups) {
      expect(group.Properties).toMatchObject({ RetentionInDays: 365, KmsKeyId: { 'Fn::GetAtt': [key, 'Arn'] } });
      expect(group.DeletionPolicy).toBe('Retain');
    }
    template.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
    // The provider of the RegisterConductor custom resource logs there too, not to a group Lambda makes.
    const provider = Object.entries(resources('AWS::Lambda::Function')).find(([id]) => id.startsWith('AWS679f53fac'))?.[1] as {
      Properties: { LoggingConfig?: { LogGroup?: unknown } };
    };
    expect(JSON.stringify(provider.Properties.LoggingConfig?.LogGroup)).toContain('RegisterConductorLogs');
  });

  it('refuses settings that do not fit together, naming the bad value', () => {
    expect(() => new IronlessStack(new App(), 'Bad', { settings: { lockTtlSeconds: 60 } })).toThrow('lockTtlSeconds (60)');
  });
});
