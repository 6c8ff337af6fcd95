/**
 * A resource limit is not a bug (issue 39, error codes; README "Exit codes"): `describeFailure` reports
 * a full disk, too many open files, memory exhausted, a worker out of memory and V8's largest string or
 * array as `resource limit reached: <what>; <what to do>` with exit 6, never "internal error ... a bug",
 * whatever syscall the error came from; a genuine bug stays exit 70.
 */
import { describe, expect, it } from 'vitest';
import { EXIT, describeFailure } from '../../cli/errors.js';

function sysError(code: string, message: string, syscall?: string): Error {
  return Object.assign(new Error(message), { code, errno: -1, ...(syscall === undefined ? {} : { syscall }) });
}

describe('6: resource limit reached', () => {
  it('EXIT.resource is 6', () => {
    expect(EXIT.resource).toBe(6);
  });

  const cases: [string, unknown, string][] = [
    [
      'ENOSPC on a write',
      sysError('ENOSPC', "ENOSPC: no space left on device, write '/tmp/r/session-1.hgrec'", 'write'),
      "resource limit reached: no space left on the device (ENOSPC: no space left on device, write '/tmp/r/session-1.hgrec'); free disk space, or write to another disk",
    ],
    [
      'EMFILE on an open',
      sysError('EMFILE', "EMFILE: too many open files, open 'calibration/corpus/a.hgrec'", 'open'),
      "resource limit reached: too many open files in this process (EMFILE: too many open files, open 'calibration/corpus/a.hgrec'); raise the limit with ulimit -n (e.g. ulimit -n 65536), or open fewer at once",
    ],
    [
      'ENFILE on an accept',
      sysError('ENFILE', 'accept ENFILE: file table overflow', 'accept'),
      "resource limit reached: too many open files on this machine (accept ENFILE: file table overflow); close other programs' files or raise the system's limit (fs.file-max), or open fewer at once",
    ],
    [
      'ENOMEM on a spawn',
      sysError('ENOMEM', 'spawn ENOMEM', 'spawn'),
      'resource limit reached: the machine is out of memory (spawn ENOMEM); free memory, or use smaller inputs',
    ],
    [
      'a worker out of memory',
      sysError('ERR_WORKER_OUT_OF_MEMORY', 'Worker terminated due to reaching memory limit: JS heap out of memory'),
      'resource limit reached: a worker thread ran out of memory (Worker terminated due to reaching memory limit: JS heap out of memory); give node more memory with NODE_OPTIONS=--max-old-space-size=MB (serve: --worker-heap-mb MB), or use smaller inputs',
    ],
    [
      'Array buffer allocation failed',
      new RangeError('Array buffer allocation failed'),
      'resource limit reached: out of memory (Array buffer allocation failed); give node more memory with NODE_OPTIONS=--max-old-space-size=MB, or use smaller inputs',
    ],
    [
      'Invalid string length',
      new RangeError('Invalid string length'),
      "resource limit reached: a string longer than V8's largest (Invalid string length); use smaller inputs (split the file or the run)",
    ],
    [
      'Invalid array length',
      new RangeError('Invalid array length'),
      "resource limit reached: an array longer than V8's largest (Invalid array length); use smaller inputs (split the file or the run)",
    ],
  ];
  for (const [label, error, message] of cases) {
    it(`${label}: exit 6, what and what to do, not a bug`, () => {
      expect(describeFailure(error)).toEqual({ exitCode: EXIT.resource, message });
    });
  }

  it('other RangeErrors and other system errors keep their kinds', () => {
    expect(describeFailure(new RangeError('Maximum call stack size exceeded')).exitCode).toBe(EXIT.internal);
    expect(describeFailure(new RangeError('Invalid time value')).exitCode).toBe(EXIT.internal);
    expect(describeFailure(sysError('ENOENT', 'ENOENT: no such file or directory', 'open')).exitCode).toBe(EXIT.files);
    expect(describeFailure(sysError('ECONNREFUSED', 'connect ECONNREFUSED', 'connect')).exitCode).toBe(EXIT.network);
  });
});
