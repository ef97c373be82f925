// Jest runs TypeScript as native ES modules (NODE_OPTIONS=--experimental-vm-modules, set by the npm
// scripts): middy, fauxqs and aws-local-stepfunctions ship ESM only. ts-jest transpiles each file on
// its own (isolatedModules); `npm run typecheck` is what type-checks.
const tsJest = ['ts-jest', { useESM: true, tsconfig: '<rootDir>/tsconfig.json' }];
const common = {
  // Builds of past releases (dist/releases) hold a package.json of their own.
  modulePathIgnorePatterns: ['<rootDir>/dist/'],
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': tsJest },
  testEnvironment: 'node',
};

/** @type {import('jest').Config} */
export default {
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/test/unit/**/*.test.ts'],
      // Some unit tests talk HTTP on loopback (the virtual agent, the fake IPA): 5 s is not enough under load.
      setupFilesAfterEnv: ['<rootDir>/test/jest-timeout.ts'],
    },
    { ...common, displayName: 'infra', testMatch: ['<rootDir>/test/infra/**/*.test.ts'] },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/jest-timeout.ts'],
      globalSetup: '<rootDir>/test/integration/global-setup.mjs',
    },
    {
      ...common,
      displayName: 'compat',
      testMatch: ['<rootDir>/test/compat/**/*.test.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/jest-timeout.ts'],
      globalSetup: '<rootDir>/test/integration/global-setup.mjs',
    },
    {
      ...common,
      // The grenade test (npm run test:upgrade): a past release upgraded to this checkout under load.
      displayName: 'upgrade',
      testMatch: ['<rootDir>/test/upgrade/**/*.test.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/jest-timeout.ts'],
      globalSetup: '<rootDir>/test/integration/global-setup.mjs',
    },
  ],
};
