/** Links in responses, as Ironic's `api/controllers/link.py` builds them. */

export interface Link {
  readonly href: string;
  readonly rel: string;
  readonly type?: string;
}

/** `self` links are under /v1, `bookmark` links are not. */
export function makeLink(rel: string, baseUrl: string, resource: string, args: string, bookmark = false): Link {
  const prefix = bookmark ? `${baseUrl}/${resource}` : `${baseUrl}/v1/${resource}`;
  return { href: args.startsWith('?') ? `${prefix}${args}` : `${prefix}/${args}`, rel };
}

/** The usual pair: self and bookmark. */
export function selfAndBookmark(baseUrl: string, resource: string, args: string): Link[] {
  return [makeLink('self', baseUrl, resource, args), makeLink('bookmark', baseUrl, resource, args, true)];
}
