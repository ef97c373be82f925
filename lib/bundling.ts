/**
 * How each Lambda entry is bundled. The CDK stack (through local bundling of its assets) and the
 * local stack both call this, so the code the local stack runs is byte for byte what deploys.
 */
import { type BuildOptions, build, buildSync } from 'esbuild';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The Lambda functions and their entry files. */
export const FUNCTIONS = {
  api: 'functions/api/index.ts',
  conductor: 'functions/conductor/index.ts',
  dbsync: 'functions/dbsync/index.ts',
  authorizer: 'functions/authorizer/index.ts',
} as const;
export type FunctionName = keyof typeof FUNCTIONS;

/** File name of a bundle inside its asset directory; the Lambda handler is `index.handler`. */
export const BUNDLE_FILE = 'index.mjs';
/**
 * NODE_OPTIONS of every function: stack traces in logs point into the TypeScript sources through
 * the bundle's linked source map. The local Lambda host starts its workers with the same options.
 */
export const FUNCTION_NODE_OPTIONS = '--enable-source-maps';

export const HANDLER = 'index.handler';

/** esbuild options for one entry. ESM for Node 22, everything bundled (SDK included), names kept. */
export function bundleOptions(entry: string, outdir: string): BuildOptions {
  return {
    entryPoints: { index: join(PROJECT_ROOT, entry) },
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'esm',
    // Error class names are part of the contract: Step Functions retries and catches by them.
    keepNames: true,
    minify: true,
    sourcemap: 'linked',
    sourcesContent: false,
    legalComments: 'none',
    logLevel: 'warning',
    // Some bundled CommonJS dependencies call require(); give ESM output a require.
    banner: {
      js: "import { createRequire as __ironlessCreateRequire } from 'node:module'; const require = __ironlessCreateRequire(import.meta.url);",
    },
    absWorkingDir: PROJECT_ROOT,
  };
}

/**
 * Each function's bundle files as built in this process (CDK moves its output directory away, so
 * the bytes are kept): the sources do not change while a synth runs.
 */
const bundledInProcess = new Map<FunctionName, Map<string, Buffer>>();

/**
 * Bundle one function synchronously (CDK asset bundling is synchronous). A process that
 * synthesizes several stacks (the infra tests) builds each function once and writes it again after.
 */
export function bundleFunctionSync(name: FunctionName, outdir: string): void {
  const earlier = bundledInProcess.get(name);
  if (earlier === undefined) {
    buildSync(bundleOptions(FUNCTIONS[name], outdir));
    const files = readdirSync(outdir, { recursive: true, withFileTypes: true }).filter((f) => f.isFile());
    bundledInProcess.set(
      name,
      new Map(files.map((f) => [relative(outdir, join(f.parentPath, f.name)), readFileSync(join(f.parentPath, f.name))])),
    );
    return;
  }
  for (const [file, bytes] of earlier) {
    mkdirSync(dirname(join(outdir, file)), { recursive: true });
    writeFileSync(join(outdir, file), bytes);
  }
}

/** Bundle every function into `outdir/<name>/index.mjs`. */
export async function bundleAll(outdir: string): Promise<Record<FunctionName, string>> {
  const out = {} as Record<FunctionName, string>;
  await Promise.all(
    (Object.keys(FUNCTIONS) as FunctionName[]).map(async (name) => {
      const dir = join(outdir, name);
      await build(bundleOptions(FUNCTIONS[name], dir));
      out[name] = join(dir, BUNDLE_FILE);
    }),
  );
  return out;
}
