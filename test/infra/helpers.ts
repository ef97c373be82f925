/** Reading synthesized templates: resources by type, a function's properties, a role's statements. */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { IronlessStack, type IronlessStackProps } from '../../lib/ironless-stack';
import { acknowledgeFindings, addPolicyValidation } from '../../lib/nag';

export type Resource = { Type: string; Properties: Record<string, unknown> };
export type Statement = { Effect?: string; Action: string | string[]; Resource: unknown; Condition?: unknown; Principal?: unknown };

/**
 * A stack with both policy packs attached and its findings acknowledged, synthesized: throws as
 * `cdk synth` would when a check fails.
 */
export function synthValidated(id: string, props: IronlessStackProps = {}): { stack: IronlessStack; template: Template } {
  const app = new App();
  const stack = new IronlessStack(app, id, props);
  acknowledgeFindings(stack);
  addPolicyValidation(app);
  app.synth();
  return { stack, template: Template.fromStack(stack) };
}

export function resourcesOf(template: Template, type: string): [string, Resource][] {
  return Object.entries(template.findResources(type)) as [string, Resource][];
}

/** One of the stack's own functions by name (`api`, `conductor`, `dbsync`, `authorizer`). */
export function functionNamed(template: Template, name: string): [string, Resource] {
  const found = resourcesOf(template, 'AWS::Lambda::Function').find(([, f]) =>
    String(f.Properties.Description).startsWith(`Ironless ${name} `),
  );
  if (!found) throw new Error(`no function ${name}`);
  return found;
}

/** Every statement of the policies (inline and managed) attached to a role. */
export function roleStatements(template: Template, roleLogicalId: string): Statement[] {
  const attached = (p: Resource) => JSON.stringify(p.Properties.Roles ?? []).includes(`"${roleLogicalId}"`);
  return [...resourcesOf(template, 'AWS::IAM::Policy'), ...resourcesOf(template, 'AWS::IAM::ManagedPolicy')]
    .filter(([, p]) => attached(p))
    .flatMap(([, p]) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
}

/** The role logical id of one of the stack's functions. */
export function roleOfFunction(template: Template, name: string): string {
  const role = functionNamed(template, name)[1].Properties.Role as { 'Fn::GetAtt': [string, string] };
  return role['Fn::GetAtt'][0];
}

/** Action → the resources it is allowed on, as JSON strings, over a role's statements. */
export function grantsOf(statements: Statement[]): Map<string, string[]> {
  const grants = new Map<string, string[]>();
  for (const s of statements) {
    if (s.Effect === 'Deny') continue;
    for (const action of [s.Action].flat()) {
      const list = grants.get(action) ?? [];
      for (const resource of [s.Resource].flat()) list.push(JSON.stringify(resource));
      grants.set(action, list);
    }
  }
  return grants;
}

/** The actions the role of one of the stack's functions (found by its description) may take on a table. */
export function tableActions(template: Template, description: RegExp, tableLogicalId: string): string[] {
  const [, fn] = resourcesOf(template, 'AWS::Lambda::Function').find(([, f]) => description.test(String(f.Properties.Description))) ?? [];
  const role = (fn?.Properties.Role as { 'Fn::GetAtt': [string] } | undefined)?.['Fn::GetAtt'][0];
  if (role === undefined) throw new Error(`no function described by ${description}`);
  return resourcesOf(template, 'AWS::IAM::Policy')
    .filter(([, p]) => JSON.stringify(p.Properties.Roles).includes(role))
    .flatMap(([, p]) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement)
    .filter((s) => JSON.stringify(s.Resource).includes(tableLogicalId))
    .flatMap((s) => [s.Action].flat());
}
