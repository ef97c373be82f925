/**
 * How each Lambda entry is bundled. The CDK stack (through local bundling of its assets) and the
 * local stack both call this, so the code the local stack runs is byte for byte what deploys.
 */
import { type BuildOptions, type OutputFile, build, buildSync } from 'esbuild';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isolinuxForConductor } from './isolinux';

export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The Lambda functions and their entry files. */
export const FUNCTIONS = {
  api: 'functions/api/index.ts',
  conductor: 'functions/conductor/index.ts',
  dbsync: 'functions/dbsync/index.ts',
  authorizer: 'functions/authorizer/index.ts',
  /** The web console's files (`ui/`), embedded in its bundle. */
  ui: 'functions/ui/index.ts',
  /** The custom resources that keep `cdk deploy` and `ironless upgrade` from undoing each other (lib/constructs/deploy-guard.ts). */
  'deploy-guard': 'functions/deploy-guard/index.ts',
} as const;
export type FunctionName = keyof typeof FUNCTIONS;

/** File name of a bundle inside its asset directory; the Lambda handler is `index.handler`. */
export const BUNDLE_FILE = 'index.mjs';
/** The folder of a bundle's chunks, beside its entry: code the entry loads when first needed. */
export const CHUNKS_DIR = 'chunks';
/**
 * NODE_OPTIONS of every function: stack traces in logs point into the TypeScript sources through
 * the bundle's linked source map. The local Lambda host starts its workers with the same options.
 */
export const FUNCTION_NODE_OPTIONS = '--enable-source-maps';

export const HANDLER = 'index.handler';

/**
 * esbuild options for one entry. ESM for Node 22, everything bundled (SDK included), names kept.
 *
 * Cold start is the time to load the entry file, and most of it is V8 parsing what the file
 * holds, so the entry holds only what every invocation needs:
 * - `splitting`: what an entry imports with `import()` (the API's controllers, the conductor's
 *   flows, the SDK's own credential providers) goes into chunk files beside `index.mjs`, loaded
 *   on first use. The function's asset is the whole directory.
 * - `mainFields` module first: packages' ES module builds, which esbuild tree-shakes, where the
 *   CommonJS build of an AWS SDK client holds every command of its service.
 */
export function bundleOptions(entry: string, outdir: string): BuildOptions {
  return {
    entryPoints: { index: join(PROJECT_ROOT, entry) },
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    chunkNames: `${CHUNKS_DIR}/[name]-[hash]`,
    mainFields: ['module', 'main'],
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
 * The web console (`ui/`): one esbuild step from its TypeScript/JSX and stylesheet to `app.js`
 * and `app.css`, for browsers of the last few years, nothing loaded from elsewhere at run time.
 */
export function uiBuildOptions(): BuildOptions {
  return {
    entryPoints: { app: join(PROJECT_ROOT, 'ui/src/main.tsx') },
    outdir: join(PROJECT_ROOT, 'dist/ui'),
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: ['chrome111', 'firefox115', 'safari16.4'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    tsconfig: join(PROJECT_ROOT, 'ui/tsconfig.json'),
    minify: true,
    legalComments: 'none',
    write: false,
    logLevel: 'warning',
    absWorkingDir: PROJECT_ROOT,
  };
}

/** The console's files by name: the built script and stylesheet, and the page that loads them. */
function uiFiles(outputs: readonly OutputFile[]): Record<string, string> {
  const files: Record<string, string> = { 'index.html': readFileSync(join(PROJECT_ROOT, 'ui/index.html'), 'utf8') };
  for (const file of outputs) files[basename(file.path)] = file.text;
  return files;
}

/** The console's files, built now (synchronously, for CDK asset bundling). */
export function buildUiSync(): Record<string, string> {
  return uiFiles(buildSync(uiBuildOptions()).outputFiles ?? []);
}

/** The console's files, built now. */
export async function buildUi(): Promise<Record<string, string>> {
  return uiFiles((await build(uiBuildOptions())).outputFiles ?? []);
}

/** The `ui` function embeds the console's files: they are its whole content. */
function withUiFiles(options: BuildOptions, files: Record<string, string>): BuildOptions {
  return { ...options, define: { IRONLESS_UI_FILES: JSON.stringify(files) } };
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
    const options = bundleOptions(FUNCTIONS[name], outdir);
    buildSync(name === 'ui' ? withUiFiles(options, buildUiSync()) : options);
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
      // Chunks of an earlier build would stay beside the new ones, and be copied with them.
      rmSync(dir, { recursive: true, force: true });
      const options = bundleOptions(FUNCTIONS[name], dir);
      await build(name === 'ui' ? withUiFiles(options, await buildUi()) : options);
      // The conductor's isolinux as the stacks bundle it (Debian's, when this machine has it), so
      // `ironless upgrade` publishes a conductor that still builds BIOS agent ISOs.
      if (name === 'conductor') {
        for (const [path, bytes] of Object.entries(isolinuxForConductor({}).files)) {
          mkdirSync(dirname(join(dir, path)), { recursive: true });
          writeFileSync(join(dir, path), bytes);
        }
      }
      out[name] = join(dir, BUNDLE_FILE);
    }),
  );
  return out;
}
