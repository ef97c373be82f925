/** Inspection rules in memory for unit tests: the store's interface over a list in creation order. */
import { InspectionRuleNotFound } from '../../../functions/common/inspection-rules/errors';
import type { InspectionRuleStore } from '../../../functions/db/inspection-rules';
import type { PageOf } from '../../../functions/db/query';
import { InspectionRule, type InspectionRuleData } from '../../../functions/objects/inspection-rule';

let counter = 0;

/** A rule with a new UUID; actions default to one that adds a trait. */
export function makeRule(overrides: Partial<InspectionRuleData> = {}): InspectionRule {
  counter += 1;
  return new InspectionRule({
    uuid: `00000000-0000-4000-8000-${String(counter).padStart(12, '0')}`,
    priority: 0,
    phase: 'main',
    sensitive: false,
    conditions: [],
    actions: [{ op: 'add-trait', args: { name: 'CUSTOM_RULED' } }],
    created_at: new Date().toISOString(),
    ...overrides,
  });
}

export class MemoryInspectionRuleStore implements InspectionRuleStore {
  readonly rules: InspectionRule[] = [];

  constructor(rules: readonly InspectionRule[] = []) {
    this.rules.push(...rules);
  }

  async get(uuid: string): Promise<InspectionRule> {
    const rule = this.rules.find((r) => r.uuid === uuid);
    if (rule === undefined) throw new InspectionRuleNotFound(uuid);
    return rule;
  }

  async create(rule: InspectionRule): Promise<InspectionRule> {
    this.rules.push(rule);
    return rule;
  }

  async save(rule: InspectionRule): Promise<InspectionRule> {
    return rule;
  }

  async destroy(rule: InspectionRule): Promise<void> {
    this.rules.splice(this.rules.indexOf(rule), 1);
  }

  async list(page: { limit: number }, filters: { phase?: string } = {}): Promise<PageOf<InspectionRule>> {
    const items = this.rules.filter((r) => filters.phase === undefined || r.phase === filters.phase).slice(0, page.limit);
    return { items, more: false };
  }

  async listPhase(phase: string): Promise<InspectionRule[]> {
    return this.rules.filter((r) => (r.phase ?? 'main') === phase);
  }
}
