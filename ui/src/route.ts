/**
 * Where the console is, kept in the URL's hash so a view can be bookmarked, shared and reloaded,
 * and the files stay one page the function serves as is: `#/fleet?provision_state=active`,
 * `#/nodes/<uuid or name>`, `#/conductors`, `#/enroll`. Pure: no DOM, unit-tested.
 */

export type Route =
  | { readonly view: 'fleet'; readonly query: Readonly<Record<string, string>> }
  | { readonly view: 'node'; readonly ident: string }
  | { readonly view: 'conductors' }
  | { readonly view: 'enroll' };

export function parseRoute(hash: string): Route {
  const [path = '', search = ''] = hash.replace(/^#/, '').split('?', 2);
  const parts = path.split('/').filter((p) => p !== '');
  if (parts[0] === 'nodes' && parts[1]) return { view: 'node', ident: decodeURIComponent(parts[1]) };
  if (parts[0] === 'conductors') return { view: 'conductors' };
  if (parts[0] === 'enroll') return { view: 'enroll' };
  const query: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(search)) if (v !== '' || k === 'conductor_group') query[k] = v;
  return { view: 'fleet', query };
}

export function formatRoute(route: Route): string {
  switch (route.view) {
    case 'node':
      return `#/nodes/${encodeURIComponent(route.ident)}`;
    case 'conductors':
      return '#/conductors';
    case 'enroll':
      return '#/enroll';
    case 'fleet': {
      const search = new URLSearchParams(route.query).toString();
      return search ? `#/fleet?${search}` : '#/fleet';
    }
  }
}
