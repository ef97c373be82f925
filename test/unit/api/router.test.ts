/**
 * The router loads controller modules when a request first needs them: each module's path patterns
 * must cover every route it declares, or a request would miss the route (404, or a 405 without it).
 */
import { CONTROLLERS, statesAlias } from '../../../functions/api/router';
import { type LazyRoutes, type Route, lazyRoutes, loadRoutesFor, underPattern } from '../../../functions/api/route';

/** A route's path after `v1`, its `:name` segments as `:`. */
function shape(route: Route): string[] {
  return route.segments.slice(1).map((s) => (s.startsWith(':') ? ':' : s));
}

describe('router', () => {
  describe('CONTROLLERS', () => {
    it("covers every route of each module with that module's patterns", async () => {
      const uncovered: string[] = [];
      for (const module of CONTROLLERS)
        for (const route of await module.load())
          if (!module.under.some((p) => underPattern(p, shape(route)))) uncovered.push(`${route.method} /${route.segments.join('/')}`);
      expect(uncovered).toEqual([]);
    });

    it('loads, for a path, every module with a route of that path', async () => {
      const all = (await Promise.all(CONTROLLERS.map(async (m) => ({ m, routes: await m.load() })))).flatMap(({ m, routes }) =>
        routes.map((r) => ({ m, r })),
      );
      for (const { r } of all) {
        // A request path for the route: each parameter a value no literal segment has.
        const path = r.segments.slice(1).map((s) => (s.startsWith(':') ? 'x-value' : s));
        const loaded = new Set(await loadRoutesFor(CONTROLLERS, path));
        const sameShape = all.filter(({ r: other }) => other.segments.length === r.segments.length && samePath(other, path));
        for (const { r: other } of sameShape) expect(loaded.has(other)).toBe(true);
      }
    });
  });

  describe('underPattern', () => {
    it('matches `:` with any segment and a final `*` with any further segments, or none', () => {
      expect(underPattern(['nodes', ':'], ['nodes', 'abc'])).toBe(true);
      expect(underPattern(['nodes', ':'], ['nodes', 'abc', 'vifs'])).toBe(false);
      expect(underPattern(['nodes', ':'], ['nodes'])).toBe(false);
      expect(underPattern(['nodes', ':', 'vifs', '*'], ['nodes', 'abc', 'vifs'])).toBe(true);
      expect(underPattern(['nodes', ':', 'vifs', '*'], ['nodes', 'abc', 'vifs', 'v1'])).toBe(true);
      expect(underPattern(['nodes', ':', 'vifs', '*'], ['nodes', 'abc', 'traits'])).toBe(false);
      expect(underPattern(['chassis', '*'], ['ports'])).toBe(false);
    });
  });

  describe('loadRoutesFor', () => {
    function counted(under: string[], name: string): { module: LazyRoutes; loads: () => number } {
      let loads = 0;
      const module = lazyRoutes(under, async () => {
        loads++;
        return [{ method: 'GET', segments: ['v1', name], handler: async () => ({ status: 200 }) }];
      });
      return { module, loads: () => loads };
    }

    it('loads only the modules whose patterns hold the path, each once', async () => {
      const a = counted(['a/*'], 'a');
      const b = counted(['b'], 'b');
      expect((await loadRoutesFor([a.module, b.module], ['a', 'x'])).map((r) => r.segments[1])).toEqual(['a']);
      await loadRoutesFor([a.module, b.module], ['a']);
      expect([a.loads(), b.loads()]).toEqual([1, 0]);
      expect(await loadRoutesFor([a.module, b.module], ['c'])).toEqual([]);
    });

    it('tries a module again after its load failed', async () => {
      let attempts = 0;
      const flaky = lazyRoutes(['f'], async () => {
        attempts++;
        if (attempts === 1) throw new Error('chunk not loaded');
        return [];
      });
      await expect(loadRoutesFor([flaky], ['f'])).rejects.toThrow('chunk not loaded');
      await expect(loadRoutesFor([flaky], ['f'])).resolves.toEqual([]);
      expect(attempts).toBe(2);
    });
  });
});

function samePath(route: Route, path: readonly string[]): boolean {
  return route.segments.slice(1).every((s, i) => s.startsWith(':') || s === path[i]);
}

describe('statesAlias', () => {
  it("rewrites Ironic's node-last states paths to the node-first form", () => {
    expect(statesAlias(['v1', 'nodes', 'states', 'n1'], 'GET')).toEqual(['v1', 'nodes', 'n1', 'states']);
    expect(statesAlias(['v1', 'nodes', 'states', 'console', 'n1'], 'GET')).toEqual(['v1', 'nodes', 'n1', 'states', 'console']);
    expect(statesAlias(['v1', 'nodes', 'states', 'console', 'n1'], 'PUT')).toEqual(['v1', 'nodes', 'n1', 'states', 'console']);
    expect(statesAlias(['v1', 'nodes', 'states', 'power', 'n1'], 'PUT')).toEqual(['v1', 'nodes', 'n1', 'states', 'power']);
    expect(statesAlias(['v1', 'nodes', 'states', 'provision', 'n1'], 'PUT')).toEqual(['v1', 'nodes', 'n1', 'states', 'provision']);
  });

  it('reads a GET of /v1/nodes/states/{action} as the states of a node named after the action, except the console', () => {
    expect(statesAlias(['v1', 'nodes', 'states', 'power'], 'GET')).toEqual(['v1', 'nodes', 'power', 'states']);
    expect(statesAlias(['v1', 'nodes', 'states', 'console'], 'GET')).toBe('missing node');
  });

  it('refuses as Ironic what names no node or a method the states controller does not serve', () => {
    expect(statesAlias(['v1', 'nodes', 'states'], 'GET')).toBe('missing node');
    expect(statesAlias(['v1', 'nodes', 'states', 'console'], 'PUT')).toBe('missing node');
    expect(statesAlias(['v1', 'nodes', 'states', 'raid'], 'PUT')).toBe('missing node');
    for (const [path, method] of [
      [['v1', 'nodes', 'states'], 'PUT'],
      [['v1', 'nodes', 'states', 'n1'], 'PUT'],
      [['v1', 'nodes', 'states', 'n1'], 'DELETE'],
      [['v1', 'nodes', 'states', 'power'], 'POST'],
      [['v1', 'nodes', 'states', 'console', 'n1'], 'DELETE'],
      [['v1', 'nodes', 'states', 'power', 'n1'], 'GET'],
      [['v1', 'nodes', 'states', 'foo', 'n1'], 'PUT'],
    ] as const)
      expect(statesAlias([...path], method)).toBe('method not allowed');
  });

  it('leaves every other path alone', () => {
    for (const path of [
      ['v1', 'nodes', 'n1', 'states', 'console'],
      ['v1', 'nodes', 'n1', 'states'],
      ['v1', 'nodes', 'states', 'console', 'n1', 'x'],
      ['v1', 'ports', 'states', 'n1'],
    ])
      expect(statesAlias(path, 'GET')).toEqual(path);
  });
});
