import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it, expect } from 'vitest';
import { startViewer } from '../../recording/view/server.js';
import { tempDir } from './helpers.js';

// `view DIR` on a missing directory used to serve an empty page: it now refuses to start, naming the
// path and what to give instead (the CLI prints the message as one line).
const WHAT_TO_GIVE =
  'give a directory of record files (*.hgrec, as `harness-gym serve --record DIR` or `harness-gym eval --record DIR` write them) or one such file';

describe('startViewer on a path without records', () => {
  it('rejects when the path does not exist', async () => {
    const path = join(tempDir('hg-view-missing-'), 'no-such-dir');
    await expect(startViewer({ path, port: 0 })).rejects.toThrow(new Error(`${path} does not exist: ${WHAT_TO_GIVE}`));
  });

  it('rejects when the directory holds no record file', async () => {
    const path = tempDir('hg-view-empty-');
    writeFileSync(join(path, 'notes.txt'), 'not a record\n');
    await expect(startViewer({ path, port: 0 })).rejects.toThrow(new Error(`${path} holds no record file: ${WHAT_TO_GIVE}`));
  });

  it('rejects when the file is not a record file', async () => {
    const path = join(tempDir('hg-view-notrec-'), 'README.md');
    writeFileSync(path, '# not a record file\n');
    await expect(startViewer({ path, port: 0 })).rejects.toThrow(new Error(`${path} is not a record file: ${WHAT_TO_GIVE}`));
  });
});
