/**
 * AWS Control Tower's proactive controls (cfn-guard rules, through `@cdklabs/cdk-validator-cfnguard`),
 * run only where they can apply. Each rule file checks resources of the types it names; cfn-guard
 * still parses and evaluates all 237 of them against every template, about 30 s a template on
 * two cores, for the 33 that name a type Ironless deploys. This plugin reads the synthesized
 * templates first and disables the rule files that name none of their resource types (those can
 * only answer "skip"), then runs the same validator: the same findings, in a seventh of the time.
 * A rule file that names no resource type at all is always kept.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, parse } from 'node:path';
import type { IPolicyValidationContextBeta1, IPolicyValidationPluginBeta1, PolicyValidationPluginReportBeta1 } from 'aws-cdk-lib';
import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';

const RULES_DIR = join(
  dirname(createRequire(import.meta.url).resolve('@cdklabs/cdk-validator-cfnguard/package.json')),
  'rules',
  'control-tower',
  'cfn-guard',
);

/** Every rule file (by rule name) and the resource types it names. */
function ruleTypes(dir = RULES_DIR): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const text = readFileSync(join(entry.parentPath, entry.name), 'utf8');
    out.set(parse(entry.name).name, new Set(text.match(/AWS::[A-Za-z0-9]+::[A-Za-z0-9]+/g) ?? []));
  }
  return out;
}

/** The rule names that cannot apply to templates holding only `present` resource types. */
export function inapplicableRules(present: ReadonlySet<string>, rules: Map<string, Set<string>> = ruleTypes()): string[] {
  return [...rules.entries()].filter(([, types]) => types.size > 0 && ![...types].some((t) => present.has(t))).map(([name]) => name);
}

/** The resource types of the synthesized templates. */
export function resourceTypes(templatePaths: readonly string[]): Set<string> {
  const types = new Set<string>();
  for (const path of templatePaths) {
    const template = JSON.parse(readFileSync(path, 'utf8')) as { Resources?: Record<string, { Type?: string }> };
    for (const resource of Object.values(template.Resources ?? {})) if (resource.Type) types.add(resource.Type);
  }
  return types;
}

export class ApplicableGuardRules implements IPolicyValidationPluginBeta1 {
  readonly name = 'cdk-validator-cfnguard';

  validate(context: IPolicyValidationContextBeta1): PolicyValidationPluginReportBeta1 {
    const disabledRules = inapplicableRules(resourceTypes(context.templatePaths));
    return new CfnGuardValidator({ disabledRules }).validate(context);
  }
}
