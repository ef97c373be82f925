/**
 * Bundles of a release, and the manifest every build writes beside its bundles.
 *
 * `ironless build --out DIR` bundles this checkout; `ironless build --release R` bundles the commit
 * release R was cut from (RELEASE_COMMITS), with that commit's own dependencies and build, so the
 * grenade test and an operator rehearsing an upgrade run the old release's real code. Both write
 * `manifest.json`: which release the bundles are, from which commit, and that code's release
 * mapping and tables, which is what `ironless upgrade` reads to pin, check and create tables.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { RELEASE_COMMITS, RELEASE_MAPPING } from '../../functions/common/releases';
import { TABLES } from '../../functions/db/schema';
import { FUNCTIONS, PROJECT_ROOT } from '../../lib/bundling';
import { type BuildManifest, MANIFEST_FILE } from '../../local/build-manifest';

function git(args: string[], cwd = PROJECT_ROOT): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** This checkout's commit and whether its sources differ from it. */
export function checkoutIdentity(): { commit: string; dirty: boolean } {
  try {
    const commit = git(['rev-parse', 'HEAD']);
    const dirty = git(['status', '--porcelain', '--untracked-files=no', '--', 'functions', 'lib', 'local', 'statemachines', 'ui']) !== '';
    return { commit, dirty };
  } catch {
    return { commit: 'unknown', dirty: true };
  }
}

/** Write the manifest of bundles built from this checkout's sources. */
export function writeManifest(dir: string, manifest: Omit<BuildManifest, 'builtAt'>): BuildManifest {
  const full: BuildManifest = { ...manifest, builtAt: new Date().toISOString() };
  writeFileSync(join(dir, MANIFEST_FILE), `${JSON.stringify(full, null, 2)}\n`);
  return full;
}

/** The manifest of this checkout's code: release "master" (the code after the last cut release). */
export function checkoutManifest(): Omit<BuildManifest, 'builtAt'> {
  return {
    release: 'master',
    ...checkoutIdentity(),
    mapping: RELEASE_MAPPING,
    tables: TABLES,
    functions: Object.keys(FUNCTIONS),
  };
}

function run(command: string, args: string[], cwd: string, say: (line: string) => void): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_loglevel: 'error' } });
    let output = '';
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-8_000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) return resolvePromise();
      say(output.trim());
      reject(new Error(`${command} ${args.join(' ')} failed in ${cwd} (exit ${code})`));
    });
  });
}

/** Where `ironless build --release R` puts R's bundles by default. */
export function releaseBuildDir(release: string): string {
  const commit = RELEASE_COMMITS[release];
  return join(PROJECT_ROOT, 'dist', 'releases', `${release}-${(commit ?? 'unknown').slice(0, 12)}`);
}

/** Script run inside the release's checkout: its release mapping, tables and functions, as JSON. */
const DESCRIBE = [
  "import { RELEASE_MAPPING } from './functions/common/releases.ts';",
  "import { TABLES } from './functions/db/schema.ts';",
  "import { FUNCTIONS } from './lib/bundling.ts';",
  'console.log(JSON.stringify({ mapping: RELEASE_MAPPING, tables: TABLES, functions: Object.keys(FUNCTIONS) }));',
].join('\n');

/**
 * Build release `release` from the commit it was cut from: extract the commit (git archive),
 * install its locked dependencies (reusing this checkout's when the lock files are identical),
 * run its own `ironless build`, and write the manifest. Returns the manifest; an existing build of
 * the same commit is reused.
 */
export async function buildRelease(release: string, out: string, say: (line: string) => void): Promise<BuildManifest> {
  const commit = RELEASE_COMMITS[release];
  if (commit === undefined) {
    const known = Object.keys(RELEASE_COMMITS);
    throw new Error(
      `No commit is recorded for release "${release}" (RELEASE_COMMITS in functions/common/releases.ts knows: ${known.join(', ') || 'none'})`,
    );
  }
  const dir = resolve(out);
  const manifestFile = join(dir, MANIFEST_FILE);
  if (existsSync(manifestFile)) {
    const existing = JSON.parse(readFileSync(manifestFile, 'utf8')) as BuildManifest;
    if (existing.commit === commit && existing.release === release) {
      say(`Release ${release} (${commit.slice(0, 12)}) is already built in ${dir}`);
      return existing;
    }
  }
  try {
    git(['cat-file', '-e', `${commit}^{commit}`]);
  } catch {
    throw new Error(`Commit ${commit} of release ${release} is not in this clone; fetch it (git fetch --unshallow) and retry`);
  }
  const src = join(dir, 'src');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(src, { recursive: true });
  say(`[1/4] Extracting ${release} from commit ${commit.slice(0, 12)}`);
  execFileSync('sh', ['-c', `git archive --format=tar ${commit} | tar -x -C "${src}"`], { cwd: PROJECT_ROOT, stdio: 'inherit' });

  const sameLock =
    existsSync(join(PROJECT_ROOT, 'node_modules')) &&
    readFileSync(join(src, 'package-lock.json'), 'utf8') === readFileSync(join(PROJECT_ROOT, 'package-lock.json'), 'utf8');
  if (sameLock) {
    say("[2/4] Its package-lock.json is this checkout's: using the installed dependencies");
    symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(src, 'node_modules'), 'dir');
  } else {
    say('[2/4] Installing its locked dependencies (npm ci)');
    await run('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'], src, say);
  }
  say('[3/4] Building its bundles with its own `ironless build`');
  const bundles = join(dir, 'bundles');
  await run(process.execPath, ['--import', 'tsx', 'bin/ironless.ts', 'build', '--out', bundles], src, say);
  say('[4/4] Reading its release mapping and tables');
  const described = await new Promise<string>((resolveOut, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', DESCRIBE], { cwd: src });
    let text = '';
    let errors = '';
    child.stdout.on('data', (c: Buffer) => (text += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (errors += c.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolveOut(text) : reject(new Error(`Could not read release ${release}'s mapping: ${errors.slice(-2000)}`)),
    );
  });
  const { mapping, tables, functions } = JSON.parse(described) as Pick<BuildManifest, 'mapping' | 'tables' | 'functions'>;
  // The bundles are what the stack runs: move them to the top of the folder, as `ironless build` lays them out.
  execFileSync('sh', ['-c', `cp -R "${bundles}"/. "${dir}"/ && rm -rf "${bundles}" "${src}"`]);
  return writeManifest(dir, { release, commit, dirty: false, mapping, tables, functions });
}
