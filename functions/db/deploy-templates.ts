/**
 * The deploy template store. Names are unique (guards); a node's traits are matched against
 * template names, so `getByNames` reads the guards of the traits and then the templates: two
 * batch reads whatever the number of templates.
 */
import { BatchGetCommand } from './dynamo';
import { DeployTemplateAlreadyExists, DeployTemplateDuplicateName, DeployTemplateNotFound } from '#common/errors';
import { isUuidLike } from '#common/ids';
import { DeployTemplate } from '#objects/deploy-template';
import type { Dict } from '#objects/fields';
import type { ObjectCodec } from './items';
import { guard } from './keys';
import type { Page, PageOf } from './query';
import { ObjectTable, type StoreContext } from './table';

export interface DeployTemplateStore {
  get(uuid: string): Promise<DeployTemplate>;
  getByName(name: string): Promise<DeployTemplate>;
  /** A UUID or a name. */
  getByIdent(ident: string): Promise<DeployTemplate>;
  /** The templates among these names (a node's traits), in the order given; unknown names are skipped. */
  getByNames(names: readonly string[]): Promise<DeployTemplate[]>;
  create(template: DeployTemplate): Promise<DeployTemplate>;
  save(template: DeployTemplate): Promise<DeployTemplate>;
  destroy(template: DeployTemplate): Promise<void>;
  list(page: Page): Promise<PageOf<DeployTemplate>>;
}

export const DEPLOY_TEMPLATE_CODEC: ObjectCodec<DeployTemplate> = {
  cls: DeployTemplate,
  keyName: 'uuid',
  derive: () => ({ _all: 'deploy_template' }),
  guards: (v) => (typeof v.name === 'string' && v.name !== '' ? [guard.deployTemplateName(v.name)] : []),
};

export class DynamoDeployTemplateStore extends ObjectTable<DeployTemplate> implements DeployTemplateStore {
  constructor(ctx: StoreContext) {
    super(ctx, 'deploy_templates', DEPLOY_TEMPLATE_CODEC, {
      notFound: (ident) => new DeployTemplateNotFound(ident),
      alreadyExists: (t) => new DeployTemplateAlreadyExists(t.uuid),
      duplicate: (_key, t) => new DeployTemplateDuplicateName(t.name),
    });
  }

  getByName(name: string): Promise<DeployTemplate> {
    return this.getByGuard(guard.deployTemplateName(name), name);
  }

  getByIdent(ident: string): Promise<DeployTemplate> {
    return isUuidLike(ident) ? this.get(ident) : this.getByName(ident);
  }

  async getByNames(names: readonly string[]): Promise<DeployTemplate[]> {
    const wanted = [...new Set(names)];
    const owners = new Map<string, string>();
    for (let i = 0; i < wanted.length; i += 100) {
      let keys: Dict[] | undefined = wanted.slice(i, i + 100).map((name) => ({ key: guard.deployTemplateName(name) }));
      while (keys !== undefined && keys.length > 0) {
        const result = await this.client.send(
          new BatchGetCommand({ RequestItems: { [this.uniques]: { Keys: keys, ConsistentRead: true } } }),
        );
        for (const item of result.Responses?.[this.uniques] ?? []) owners.set(String(item.key), String(item.owner));
        keys = result.UnprocessedKeys?.[this.uniques]?.Keys as Dict[] | undefined;
      }
    }
    const uuids = wanted.flatMap((name) => {
      const owner = owners.get(guard.deployTemplateName(name));
      return owner === undefined ? [] : [owner];
    });
    return this.getMany(uuids);
  }

  create(template: DeployTemplate): Promise<DeployTemplate> {
    return this.createObject(template);
  }

  save(template: DeployTemplate): Promise<DeployTemplate> {
    return this.saveObject(template);
  }

  destroy(template: DeployTemplate): Promise<void> {
    return this.destroyObject(template);
  }

  list(page: Page): Promise<PageOf<DeployTemplate>> {
    return this.listFrom({ indexes: [{ index: 'byId', keyName: '_all', value: 'deploy_template' }] }, page);
  }
}
