/**
 * The latency-versus-load chart (issue 21): p50 and p99 against the offered open-loop rate, one
 * colour per contender, p50 solid and p99 dashed, both axes logarithmic (B2 runs ten times the
 * system's rate, and p99 ranges from milliseconds to seconds).
 *
 * Written by hand: no charting or SVG library is among the workspace's dependencies, and this
 * chart is a few lines and circles; adding a plotting package for it would weigh more than it.
 * Pure, unit-tested.
 */
export interface LoadPoint {
  /** The open loop's scheduled rate, req/s. */
  offeredPerSecond: number;
  p50Ms: number;
  p99Ms: number;
}

export interface ChartSeries {
  label: string;
  points: readonly LoadPoint[];
}

export interface LatencyChart {
  title: string;
  series: readonly ChartSeries[];
}

const WIDTH = 720;
const HEIGHT = 420;
// The legend sits in the top margin, above the plot, where no point can hide it.
const MARGIN = { left: 70, right: 24, top: 64, bottom: 56 };
const COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd'];

/** The 1-2-5 steps of every decade that cover [low, high], from the step at or below low to the one at or above high. */
export function logTicks(low: number, high: number): number[] {
  if (!(low > 0) || !(high >= low)) throw new Error(`log ticks need 0 < low <= high, got ${low}, ${high}`);
  const ticks: number[] = [];
  for (let decade = Math.floor(Math.log10(low)); decade <= Math.ceil(Math.log10(high)); decade += 1) {
    for (const step of [1, 2, 5]) ticks.push(Number((step * 10 ** decade).toPrecision(1)));
  }
  const first = Math.max(0, ticks.filter((tick) => tick <= low).length - 1);
  const lastAtOrAbove = ticks.findIndex((tick) => tick >= high);
  return ticks.slice(first, (lastAtOrAbove === -1 ? ticks.length - 1 : lastAtOrAbove) + 1);
}

/** Maps [domainLow, domainHigh] logarithmically onto [rangeStart, rangeEnd] (a reversed range for y). */
export function logScale(domainLow: number, domainHigh: number, rangeStart: number, rangeEnd: number): (value: number) => number {
  const low = Math.log10(domainLow);
  const span = Math.log10(domainHigh) - low || 1;
  return (value) => rangeStart + ((Math.log10(value) - low) / span) * (rangeEnd - rangeStart);
}

const escapeXml = (text: string) => text.replace(/[<>&"']/g, (character) => `&#${character.charCodeAt(0)};`);
const round = (value: number) => Math.round(value * 10) / 10;
const tickLabel = (value: number) => (value >= 1000 ? `${value / 1000}k` : String(value));

export function latencyChartSvg(chart: LatencyChart): string {
  const points = chart.series.flatMap((series) => series.points).filter((point) => point.offeredPerSecond > 0 && point.p50Ms > 0 && point.p99Ms > 0);
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`,
    `<text x="${WIDTH / 2}" y="24" text-anchor="middle" font-size="15">${escapeXml(chart.title)}</text>`,
  ];
  if (points.length === 0) {
    parts.push(`<text x="${WIDTH / 2}" y="${HEIGHT / 2}" text-anchor="middle">no open-loop steps measured</text>`, '</svg>');
    return parts.join('\n');
  }
  const xTicks = logTicks(Math.min(...points.map((point) => point.offeredPerSecond)), Math.max(...points.map((point) => point.offeredPerSecond)));
  const yTicks = logTicks(Math.min(...points.map((point) => point.p50Ms)), Math.max(...points.map((point) => point.p99Ms)));
  const plot = { left: MARGIN.left, right: WIDTH - MARGIN.right, top: MARGIN.top, bottom: HEIGHT - MARGIN.bottom };
  const x = logScale(xTicks[0], xTicks[xTicks.length - 1], plot.left, plot.right);
  const y = logScale(yTicks[0], yTicks[yTicks.length - 1], plot.bottom, plot.top);
  for (const tick of xTicks) {
    parts.push(`<line x1="${round(x(tick))}" y1="${plot.top}" x2="${round(x(tick))}" y2="${plot.bottom}" stroke="#ddd"/>`);
    parts.push(`<text x="${round(x(tick))}" y="${plot.bottom + 16}" text-anchor="middle">${tickLabel(tick)}</text>`);
  }
  for (const tick of yTicks) {
    parts.push(`<line x1="${plot.left}" y1="${round(y(tick))}" x2="${plot.right}" y2="${round(y(tick))}" stroke="#ddd"/>`);
    parts.push(`<text x="${plot.left - 6}" y="${round(y(tick)) + 4}" text-anchor="end">${tickLabel(tick)}</text>`);
  }
  parts.push(`<rect x="${plot.left}" y="${plot.top}" width="${plot.right - plot.left}" height="${plot.bottom - plot.top}" fill="none" stroke="#333"/>`);
  parts.push(`<text x="${(plot.left + plot.right) / 2}" y="${HEIGHT - 14}" text-anchor="middle">offered load, req/s (open loop, log scale)</text>`);
  parts.push(
    `<text x="16" y="${(plot.top + plot.bottom) / 2}" text-anchor="middle" transform="rotate(-90 16 ${(plot.top + plot.bottom) / 2})">latency ms from the intended send time (log scale)</text>`,
  );
  chart.series.forEach((series, index) => {
    const colour = COLOURS[index % COLOURS.length];
    const sorted = series.points.filter((point) => points.includes(point)).sort((a, b) => a.offeredPerSecond - b.offeredPerSecond);
    for (const [percentile, dash] of [
      ['p50Ms', ''],
      ['p99Ms', ' stroke-dasharray="6 4"'],
    ] as const) {
      const coordinates = sorted.map((point) => `${round(x(point.offeredPerSecond))},${round(y(point[percentile]))}`);
      parts.push(`<polyline fill="none" stroke="${colour}" stroke-width="2"${dash} points="${coordinates.join(' ')}"/>`);
      for (const coordinate of coordinates) {
        const [cx, cy] = coordinate.split(',');
        parts.push(`<circle cx="${cx}" cy="${cy}" r="3" fill="${colour}"/>`);
      }
    }
    const legendX = plot.left + index * 240;
    parts.push(`<line x1="${legendX}" y1="42" x2="${legendX + 30}" y2="42" stroke="${colour}" stroke-width="2"/>`);
    parts.push(`<text x="${legendX + 36}" y="46">${escapeXml(series.label)}: p50 solid, p99 dashed</text>`);
  });
  parts.push('</svg>');
  return parts.join('\n');
}
