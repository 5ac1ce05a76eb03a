import type { Series } from './soak-analysis';

/**
 * One chart per kind of soak series: value against minutes of load, one line per series, the
 * warm-up shaded. Linear axes from 0, so a slope looks like one.
 *
 * Written by hand for the reason latency-chart.ts gives: no charting or SVG library is among
 * the workspace's dependencies, and a few polylines do not justify one. Pure, unit-tested.
 */
const WIDTH = 720;
const HEIGHT = 380;
const MARGIN = { left: 64, right: 180, top: 40, bottom: 48 };
const COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf', '#393b79', '#637939'];

/** About five round ticks from 0 to at least `max` (steps of 1, 2 or 5 times a power of ten). */
export function linearTicks(max: number): number[] {
  if (!(max > 0)) return [0, 1];
  const rough = max / 5;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((factor) => factor * power).find((candidate) => candidate >= rough) as number;
  const ticks: number[] = [];
  for (let tick = 0; tick < max + step; tick += step) ticks.push(Number(tick.toPrecision(12)));
  return ticks;
}

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function soakChartSvg(chart: { title: string; unit: string; series: readonly Series[]; loadMinutes: number; warmUpMinutes: number }): string {
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const xTicks = linearTicks(chart.loadMinutes);
  const yTicks = linearTicks(Math.max(0, ...chart.series.flatMap((series) => series.points.map((point) => point.value))));
  const xMax = xTicks[xTicks.length - 1];
  const yMax = yTicks[yTicks.length - 1];
  const x = (minute: number) => MARGIN.left + (Math.min(Math.max(minute, 0), xMax) / xMax) * plotWidth;
  const y = (value: number) => MARGIN.top + plotHeight - (value / yMax) * plotHeight;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`,
    `<text x="${MARGIN.left}" y="24" font-size="14" font-weight="bold">${escape(chart.title)}</text>`,
    `<rect x="${x(0)}" y="${MARGIN.top}" width="${(x(chart.warmUpMinutes) - x(0)).toFixed(1)}" height="${plotHeight}" fill="#f0f0f0"><title>warm-up, not fitted</title></rect>`,
    ...xTicks.map(
      (tick) =>
        `<line x1="${x(tick)}" y1="${MARGIN.top + plotHeight}" x2="${x(tick)}" y2="${MARGIN.top + plotHeight + 4}" stroke="black"/><text x="${x(tick)}" y="${MARGIN.top + plotHeight + 18}" text-anchor="middle">${tick}</text>`,
    ),
    ...yTicks.map(
      (tick) =>
        `<line x1="${MARGIN.left}" y1="${y(tick)}" x2="${MARGIN.left + plotWidth}" y2="${y(tick)}" stroke="#e0e0e0"/><text x="${MARGIN.left - 6}" y="${y(tick) + 4}" text-anchor="end">${tick}</text>`,
    ),
    `<rect x="${MARGIN.left}" y="${MARGIN.top}" width="${plotWidth}" height="${plotHeight}" fill="none" stroke="black"/>`,
    `<text x="${MARGIN.left + plotWidth / 2}" y="${HEIGHT - 10}" text-anchor="middle">minutes of load</text>`,
    `<text transform="translate(16 ${MARGIN.top + plotHeight / 2}) rotate(-90)" text-anchor="middle">${escape(chart.unit)}</text>`,
  ];
  chart.series.forEach((series, index) => {
    const colour = COLOURS[index % COLOURS.length];
    const points = series.points.map((point) => `${x(point.minute).toFixed(1)},${y(point.value).toFixed(1)}`).join(' ');
    parts.push(`<polyline fill="none" stroke="${colour}" stroke-width="1.5" points="${points}"><title>${escape(series.name)}</title></polyline>`);
    const legendY = MARGIN.top + 8 + index * 18;
    parts.push(
      `<line x1="${WIDTH - MARGIN.right + 12}" y1="${legendY}" x2="${WIDTH - MARGIN.right + 32}" y2="${legendY}" stroke="${colour}" stroke-width="2"/><text x="${WIDTH - MARGIN.right + 38}" y="${legendY + 4}">${escape(series.name)}</text>`,
    );
  });
  parts.push('</svg>');
  return parts.join('\n');
}
