// Real services on a shared 2-core machine: a test that takes 2 s alone can take 10 under load.
// (`testTimeout` is a global option jest ignores inside `projects`, hence a setup file per project.)
import { jest } from '@jest/globals';

jest.setTimeout(Number(process.env.IRONLESS_TEST_TIMEOUT_MS ?? 30_000));
