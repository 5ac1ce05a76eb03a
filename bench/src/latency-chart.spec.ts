import { latencyChartSvg, logScale, logTicks } from './latency-chart';

const polylines = (svg: string) =>
  [...svg.matchAll(/<polyline [^>]*points="([^"]*)"/g)].map((match) => match[1].split(' ').map((pair) => pair.split(',').map(Number)));

describe('latency-versus-load chart', () => {
  it('ticks every 1-2-5 step from the one at or below the lowest value to the one at or above the highest', () => {
    expect(logTicks(30, 2_400)).toEqual([20, 50, 100, 200, 500, 1000, 2000, 5000]);
    expect(logTicks(1.5, 9)).toEqual([1, 2, 5, 10]);
    expect(logTicks(100, 100)).toEqual([100]);
    expect(() => logTicks(0, 10)).toThrow('0 < low');
  });

  it('maps a decade to equal lengths, and a reversed range for y', () => {
    const x = logScale(10, 1000, 0, 200);
    expect([10, 100, 1000].map(x)).toEqual([0, 100, 200]);
    const y = logScale(1, 100, 400, 0);
    expect([1, 10, 100].map(y)).toEqual([400, 200, 0]);
  });

  it('draws p50 and p99 of each contender as lines rising with the load, p99 above p50, with an escaped legend', () => {
    const svg = latencyChartSvg({
      title: 'W1 <create> & more',
      series: [
        {
          label: 'system',
          points: [
            { offeredPerSecond: 60, p50Ms: 20, p99Ms: 150 },
            { offeredPerSecond: 30, p50Ms: 10, p99Ms: 40 },
          ],
        },
        {
          label: 'B2',
          points: [
            { offeredPerSecond: 1000, p50Ms: 2, p99Ms: 9 },
            { offeredPerSecond: 500, p50Ms: 1, p99Ms: 4 },
          ],
        },
      ],
    });
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    expect(svg).toContain('W1 &#60;create&#62; &#38; more');
    expect(svg).not.toContain('<create>');
    const [systemP50, systemP99, b2P50, b2P99] = polylines(svg);
    expect([systemP50, systemP99, b2P50, b2P99].map((line) => line.length)).toEqual([2, 2, 2, 2]);
    // Sorted by offered load: x grows; higher latency is a smaller y in SVG.
    for (const line of [systemP50, systemP99, b2P50, b2P99]) {
      expect(line[1][0]).toBeGreaterThan(line[0][0]);
      expect(line[1][1]).toBeLessThan(line[0][1]);
    }
    expect(systemP99[0][1]).toBeLessThan(systemP50[0][1]);
    expect(b2P50[0][0]).toBeGreaterThan(systemP50[1][0]);
    expect(svg.match(/stroke-dasharray/g)).toHaveLength(2);
    expect(svg).toContain('system: p50 solid, p99 dashed');
  });

  it('says so instead of drawing when nothing was measured', () => {
    const svg = latencyChartSvg({ title: 'W5', series: [{ label: 'system', points: [] }] });
    expect(svg).toContain('no open-loop steps measured');
    expect(polylines(svg)).toEqual([]);
  });
});
