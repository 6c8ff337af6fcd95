import { defineConfig } from 'vitest/config';
import { projectFiles } from './vitest.projects.js';

/**
 * Two projects (vitest.projects.ts sorts the files): `unit`, the files that start no socket, server,
 * child process or worker thread, under a guard that makes those throw (test/unit-guard.ts), for the
 * edit-test loop (`npm run test:unit`: `vitest run --project unit --no-isolate`, one module graph per
 * worker instead of one per file); and `integration`, the rest. `vitest run` (`npm test`, CI) runs both,
 * every file once and each in isolation, as before the split.
 */
const files = projectFiles();

export default defineConfig({
  test: {
    testTimeout: 60_000,
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'unit', include: files.unit, setupFiles: ['test/unit-guard.ts'] } },
      { extends: true, test: { name: 'integration', include: files.integration } },
    ],
  },
});
