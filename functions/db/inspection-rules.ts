/**
 * The inspection rule store: rules by UUID, listed in creation order through the table's byId
 * index. The conductor reads every rule of a phase at once when an inspection finishes; rules are
 * few (an operator writes them by hand), so that is a list through the index, not a scan.
 */
import { InspectionRuleAlreadyExists, InspectionRuleNotFound } from '#common/inspection-rules/errors';
import { InspectionRule } from '#objects/inspection-rule';
import type { ObjectCodec } from './items';
import type { Page, PageOf } from './query';
import { ObjectTable, type StoreContext } from './table';

export interface InspectionRuleStore {
  get(uuid: string): Promise<InspectionRule>;
  create(rule: InspectionRule): Promise<InspectionRule>;
  save(rule: InspectionRule): Promise<InspectionRule>;
  destroy(rule: InspectionRule): Promise<void>;
  /** A page of rules; `phase` keeps only the rules of that phase. */
  list(page: Page, filters?: { phase?: string }): Promise<PageOf<InspectionRule>>;
  /** Every rule of a phase, in creation order (what an inspection applies). */
  listPhase(phase: string): Promise<InspectionRule[]>;
}

export const INSPECTION_RULE_CODEC: ObjectCodec<InspectionRule> = {
  cls: InspectionRule,
  keyName: 'uuid',
  derive: () => ({ _all: 'inspection_rule' }),
  guards: () => [],
};

export class DynamoInspectionRuleStore extends ObjectTable<InspectionRule> implements InspectionRuleStore {
  constructor(ctx: StoreContext) {
    super(ctx, 'inspection_rules', INSPECTION_RULE_CODEC, {
      notFound: (ident) => new InspectionRuleNotFound(ident),
      alreadyExists: (r) => new InspectionRuleAlreadyExists(r.uuid),
      duplicate: (_key, r) => new InspectionRuleAlreadyExists(r.uuid),
    });
  }

  create(rule: InspectionRule): Promise<InspectionRule> {
    return this.createObject(rule);
  }

  save(rule: InspectionRule): Promise<InspectionRule> {
    return this.saveObject(rule);
  }

  destroy(rule: InspectionRule): Promise<void> {
    return this.destroyObject(rule);
  }

  list(page: Page, filters: { phase?: string } = {}): Promise<PageOf<InspectionRule>> {
    const phase = filters.phase;
    return this.listFrom(
      { indexes: [{ index: 'byId', keyName: '_all', value: 'inspection_rule' }] },
      page,
      phase === undefined ? undefined : (r) => (r.phase ?? 'main') === phase,
    );
  }

  async listPhase(phase: string): Promise<InspectionRule[]> {
    const out: InspectionRule[] = [];
    let marker: string | undefined;
    do {
      const page = await this.list({ limit: 1000, ...(marker ? { marker } : {}) }, { phase });
      out.push(...page.items);
      marker = page.more ? page.items.at(-1)?.uuid : undefined;
    } while (marker !== undefined);
    return out;
  }
}
