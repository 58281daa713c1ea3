/**
 * Colours for "colour nodes by measured time": a log scale from blue (fast) to red (the
 * slowest node), grey for nodes without a measured time. Used by the graph pane and the
 * legend.
 */

export const NO_TIME_COLOUR = 'hsl(0, 0%, 60%)';

function maxOf(times: Map<string, number>): number {
  let max = 0;
  for (const v of times.values()) {
    max = Math.max(max, v);
  }
  return max;
}

/** The fill for a node measured at `us` per step, relative to the slowest in `times`. */
export function timeColour(us: number | undefined, times: Map<string, number>): string {
  if (us === undefined || !(us > 0)) {
    return NO_TIME_COLOUR;
  }
  const max = maxOf(times);
  const t = max > 0 ? Math.log(us + 1) / Math.log(max + 1) : 0;
  return `hsl(${Math.round(220 - 220 * t)}, 75%, 50%)`;
}

/** Legend stops: [label µs, colour] from fast to slow. */
export function timeLegend(times: Map<string, number>): Array<[number, string]> {
  const max = maxOf(times);
  if (!(max > 0)) {
    return [];
  }
  return [0.01, 0.1, 1].map(
    f => [max * f, timeColour(max * f, times)] as [number, string]
  );
}
