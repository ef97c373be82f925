/**
 * Code and clients a function needs only for some requests are loaded when one first needs them
 * (`import()`, which the bundler splits into chunk files): a cold start parses only what every
 * invocation needs. See lib/bundling.ts.
 */

/**
 * `make()` on the first call, its promise on every later one. A failed attempt is not kept: the
 * next call tries again (a chunk that failed to load, a client that failed to build).
 */
export function once<T>(make: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    if (pending === undefined) {
      const attempt = make();
      pending = attempt;
      attempt.catch(() => {
        if (pending === attempt) pending = undefined;
      });
    }
    return pending;
  };
}

/** A client, or how to build it when first needed. */
export type ClientSource<C> = C | (() => Promise<C>);

/** The client of a source, built on first use when it is a builder (wrap the builder in `once`). */
export function clientOf<C extends object>(source: ClientSource<C>): Promise<C> {
  return typeof source === 'function' ? (source as () => Promise<C>)() : Promise.resolve(source);
}
