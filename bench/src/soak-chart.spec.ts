import { linearTicks, soakChartSvg } from './soak-chart';

describe('the soak chart', () => {
  it('puts about five round ticks from 0 to at least the maximum', () => {
    expect(linearTicks(30)).toEqual([0, 10, 20, 30]);
    expect(linearTicks(243)).toEqual([0, 50, 100, 150, 200, 250]);
    expect(linearTicks(0.75)).toEqual([0, 0.2, 0.4, 0.6, 0.8]);
    expect(linearTicks(0)).toEqual([0, 1]);
  });

  it('draws one line per series with its name, and shades the warm-up', () => {
    const svg = soakChartSvg({
      title: 'Memory <MB>',
      unit: 'MB',
      loadMinutes: 30,
      warmUpMinutes: 6,
      series: [
        {
          name: 'rss gateway',
          kind: 'rss',
          unit: 'MB',
          points: [
            { minute: 0, value: 100 },
            { minute: 30, value: 200 },
          ],
        },
        {
          name: 'rss payments',
          kind: 'rss',
          unit: 'MB',
          points: [
            { minute: 0, value: 0 },
            { minute: 15, value: 50 },
          ],
        },
      ],
    });
    expect(svg.match(/<polyline /g)).toHaveLength(2);
    expect(svg).toContain('<title>rss gateway</title>');
    expect(svg).toContain('Memory &lt;MB&gt;');
    // x: 0 → 64, 30 → 64 + 476; y: 0 → 40 + 292, 100 → halfway, 200 (the top tick) → 40
    expect(svg).toContain('points="64.0,186.0 540.0,40.0"');
    expect(svg).toContain('<rect x="64" y="40" width="95.2" height="292" fill="#f0f0f0">');
  });
});
