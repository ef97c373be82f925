/**
 * The `ui` function: the web console's files, embedded at bundling time (`lib/bundling.ts` defines
 * IRONLESS_UI_FILES from the esbuild build of `ui/`), served under `/ui/` without authentication.
 */
import { serveFiles } from './serve';

declare const IRONLESS_UI_FILES: Readonly<Record<string, string>> | undefined;

export const handler = serveFiles(typeof IRONLESS_UI_FILES === 'undefined' ? {} : IRONLESS_UI_FILES);
