/**
 * Trait based networking for both stacks (Ironic's `[conductor]enable_trait_based_networking`,
 * `trait_based_networking_config_file` and its two switches): the rules are read from Ironic's
 * YAML file (or JSON) when the stack is built, checked there, and handed to the conductor as JSON
 * in its environment, so a Lambda needs no file.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { ENV } from '../functions/common/config';
import { parseRules } from '../functions/drivers/tbn/rules';

export interface TraitBasedNetworkingSettings {
  /** Trait name → `{ order?, actions: [{ action, filter, min_count?, max_count? }] }`, as in Ironic's file. */
  readonly rules: Readonly<Record<string, unknown>>;
  /** Ironic `trait_based_networking_raise_when_no_match`: refuse a VIF no rule places. @default true */
  readonly raiseWhenNoMatch?: boolean;
  /** Ironic `trait_based_networking_enable_default_trait`: CUSTOM_DEFAULT_TBN_TRAIT for nodes without rules. @default true */
  readonly enableDefaultTrait?: boolean;
}

/** The rules in a YAML or JSON file (Ironic's `trait_based_networking.yaml`); an unreadable file says which. */
export function readTraitRulesFile(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`Cannot read the trait based networking rules file ${path}: ${(err as Error).message}`);
  }
  let rules: unknown;
  try {
    rules = parse(text);
  } catch (err) {
    throw new Error(`The trait based networking rules file ${path} is not valid YAML: ${(err as Error).message}`);
  }
  // Checked here too, so the message names the file.
  parseRules(rules, `The trait based networking rules in ${path}`);
  return rules as Record<string, unknown>;
}

/**
 * The most bytes the rules may take as JSON. They travel in the conductor's environment, which
 * Lambda limits to 4 KB in all; its other variables (tables, queues, ARNs and the settings that
 * differ from the defaults) take about 2.6 KB with the default settings (measured from the
 * synthesized template on 2026-11-28, each reference to a deployed name, URL or ARN counted as
 * 110 bytes). The whole environment is checked too (`function-environment.ts`), so rules within
 * this bound still fail the synthesis if other settings fill the rest.
 */
export const TBN_RULES_MAX_BYTES = 1024;

/** Throws (every problem listed) when the rules are invalid, as Ironic's conductor refuses to start, or too large to deploy. */
export function validateTraitBasedNetworking(s: TraitBasedNetworkingSettings): void {
  parseRules(s.rules, 'settings.traitBasedNetworking.rules');
  const bytes = Buffer.byteLength(JSON.stringify(s.rules));
  if (bytes > TBN_RULES_MAX_BYTES) {
    throw new Error(
      `settings.traitBasedNetworking.rules take ${bytes} bytes as JSON; at most ${TBN_RULES_MAX_BYTES} fit in the conductor's ` +
        "environment (Lambda's 4 KB limit, shared with its other variables): use fewer traits or shorter filters.",
    );
  }
}

/** The conductor's variables; none when trait based networking is off. */
export function traitBasedNetworkingEnvironment(s: TraitBasedNetworkingSettings | undefined): Record<string, string> {
  if (s === undefined) return {};
  return {
    [ENV.tbnRules]: JSON.stringify(s.rules),
    [ENV.tbnRaiseWhenNoMatch]: String(s.raiseWhenNoMatch ?? true),
    [ENV.tbnEnableDefaultTrait]: String(s.enableDefaultTrait ?? true),
  };
}
