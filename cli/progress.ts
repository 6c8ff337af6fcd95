/**
 * Progress of a long command on a terminal: a bar on stderr with the count, the rate, the time left and,
 * for runs that score episodes, the running mean reward. Nothing at all when stderr is not a terminal
 * (piped, redirected, CI) or the command prints JSON, so scripted output never changes.
 */
import cliProgress from 'cli-progress';

/** What a command feeds its bar. */
export interface Progress {
  /** `done` of the total; `reward` when the unit was a scored episode. */
  tick(done: number, total: number, reward?: number): void;
  /** Remove the bar (before the command prints its answer). */
  stop(): void;
}

const NONE: Progress = { tick: () => {}, stop: () => {} };

/**
 * A bar labelled `label` counting `unit`s (e.g. `episodes`), or a no-op when `quiet` (JSON output) or
 * stderr is not a TTY. The work is synchronous, so the bar is redrawn from `tick` itself.
 */
export function progressBar(label: string, unit: string, quiet = false, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (quiet || !stream.isTTY) return NONE;
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: `${label} [{bar}] {value}/{total} ${unit}{reward} | {rate}/s | eta {eta_formatted}`,
      fps: 10,
      etaBuffer: 50,
      hideCursor: true,
      clearOnComplete: true,
    },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  let sum = 0;
  let scored = 0;
  const t0 = performance.now();
  let last = 0;
  return {
    tick(done, total, reward) {
      if (!started) {
        bar.start(total, 0, { reward: '', rate: '-' });
        started = true;
      }
      if (reward !== undefined) {
        sum += reward;
        scored++;
      }
      const now = performance.now();
      const payload = { reward: scored > 0 ? ` | reward ${(sum / scored).toFixed(3)}` : '', rate: ((done * 1000) / Math.max(1, now - t0)).toFixed(1) };
      bar.update(done, payload);
      // Synchronous work never yields to the bar's timer: draw at most every 100 ms from here.
      if (now - last >= 100 || done === total) {
        bar.render();
        last = now;
      }
    },
    stop() {
      if (started) bar.stop();
    },
  };
}
