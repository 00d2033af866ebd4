/**
 * RESOURCERY_TIMING=1 prints when each phase of a run ended (ms since the process started) to
 * stderr: what to look at first when a generation is slow. Costs nothing when unset.
 */
export const mark: (phase: string) => void = process.env.RESOURCERY_TIMING
  ? (phase) => process.stderr.write(`resourcery timing: ${phase.padEnd(16)} ${performance.now().toFixed(0).padStart(6)} ms\n`)
  : () => undefined;
