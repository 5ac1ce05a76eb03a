import { formatMoney } from '../lib/money';

/**
 * The settlement balance's daily change as an inline SVG bar chart (no chart library: a dozen
 * rectangles). Accessible: role="img" with a label that says what it shows, and the same
 * figures in a table for screen readers and keyboard users.
 */
export function SettlementChart({ currency, days }: { currency: string; days: { day: string; changeMinor: bigint }[] }) {
  const width = 560;
  const height = 180;
  const padding = 24;
  const largest = days.reduce((max, point) => (abs(point.changeMinor) > max ? abs(point.changeMinor) : max), 0n);
  const zeroY = height / 2;
  const barWidth = (width - padding * 2) / Math.max(days.length, 1);
  // Heights are drawn in pixels (a ratio of two bigints): the figures themselves stay exact in the table.
  const heightOf = (value: bigint) => (largest === 0n ? 0 : Number((abs(value) * 1000n) / largest) / 1000) * (height / 2 - padding);
  const first = days[0]?.day ?? '';
  const last = days[days.length - 1]?.day ?? '';
  return (
    <figure className="chart">
      <svg
        role="img"
        aria-label={`Settlement balance change per day in ${currency}, ${first} to ${last} (UTC days)`}
        viewBox={`0 0 ${width} ${height}`}
        preserveAspectRatio="none"
      >
        <line x1={padding} x2={width - padding} y1={zeroY} y2={zeroY} className="axis" />
        {days.map((point, index) => {
          const barHeight = heightOf(point.changeMinor);
          const y = point.changeMinor >= 0n ? zeroY - barHeight : zeroY;
          return (
            <rect
              key={point.day}
              x={padding + index * barWidth + 2}
              y={y}
              width={Math.max(barWidth - 4, 1)}
              height={Math.max(barHeight, 0.5)}
              className={point.changeMinor >= 0n ? 'bar-up' : 'bar-down'}
            />
          );
        })}
      </svg>
      <figcaption>Daily change of the settlement balance (available and frozen), from the reconciliation reports.</figcaption>
      <table className="sr-only">
        <caption>Settlement change per day in {currency}</caption>
        <thead>
          <tr>
            <th scope="col">Day (UTC)</th>
            <th scope="col">Change</th>
          </tr>
        </thead>
        <tbody>
          {days.map((point) => (
            <tr key={point.day}>
              <td>{point.day}</td>
              <td>{formatMoney(point.changeMinor, currency)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}

function abs(value: bigint): bigint {
  return value < 0n ? -value : value;
}
