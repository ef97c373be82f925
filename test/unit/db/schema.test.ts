/** Table names as operators give them to dbsync, and as the CDK stack publishes them. */
import { parseTables } from '../../../bin/commands/dbsync-target';
import { TABLES, tableOutputKey } from '../../../functions/db/schema';

describe('tableOutputKey', () => {
  it('names each table’s stack output in PascalCase', () => {
    expect(tableOutputKey('nodes')).toBe('NodesTable');
    expect(tableOutputKey('deploy_templates')).toBe('DeployTemplatesTable');
    expect(new Set(Object.keys(TABLES).map(tableOutputKey)).size).toBe(Object.keys(TABLES).length);
  });
});

describe('parseTables (dbsync --tables)', () => {
  const all = Object.keys(TABLES).map((name) => `${name}=prod-${name}`);

  it('takes <table>=<name> for every table', () => {
    expect(parseTables(all.join(','))).toEqual(Object.fromEntries(Object.keys(TABLES).map((n) => [n, `prod-${n}`])));
  });

  it('names what is missing or wrong', () => {
    expect(() => parseTables(all.slice(1).join(','))).toThrow('--tables: missing nodes');
    expect(() => parseTables(`${all.join(',')},gadgets=x`)).toThrow('--tables: "gadgets=x" is not <table>=<name>');
  });
});
