/**
 * The overview's three charts (throughput, failures, queue depth) drawn with Recharts.
 * Loaded lazily by the overview page so the rest of the UI does not carry the library.
 */
import { Area, AreaChart, Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { ChartPoint } from "../lib/overview-chart";

function Frame({ title, testId, children }: { title: string; testId: string; children: React.ReactElement }) {
  return (
    <section className="card chart-card" data-testid={testId}>
      <div className="card-head">
        <h2>{title}</h2>
      </div>
      <div className="chart-box">
        <ResponsiveContainer width="100%" height={180}>
          {children}
        </ResponsiveContainer>
      </div>
    </section>
  );
}

const axis = { fontSize: 11, stroke: "var(--muted)" };

/** See the module comment. */
export default function OverviewCharts({ points }: { points: ChartPoint[] }) {
  return (
    <div className="chart-grid">
      <Frame title="Throughput (runs finished)" testId="chart-throughput">
        <BarChart data={points} margin={{ top: 4, right: 8, bottom: 0, left: -16 }}>
          <CartesianGrid vertical={false} stroke="var(--border)" />
          <XAxis dataKey="label" tick={axis} minTickGap={24} />
          <YAxis allowDecimals={false} tick={axis} />
          <Tooltip />
          <Bar dataKey="finished" name="finished" fill="var(--succeeded-bar)" isAnimationActive={false} />
        </BarChart>
      </Frame>
      <Frame title="Failures" testId="chart-failures">
        <BarChart data={points} margin={{ top: 4, right: 8, bottom: 0, left: -16 }}>
          <CartesianGrid vertical={false} stroke="var(--border)" />
          <XAxis dataKey="label" tick={axis} minTickGap={24} />
          <YAxis allowDecimals={false} tick={axis} />
          <Tooltip />
          <Bar dataKey="failed" name="failed" fill="var(--failed-bar)" isAnimationActive={false} />
        </BarChart>
      </Frame>
      <Frame title="Queue depth (enqueued, not started)" testId="chart-queue">
        <AreaChart data={points} margin={{ top: 4, right: 8, bottom: 0, left: -16 }}>
          <CartesianGrid vertical={false} stroke="var(--border)" />
          <XAxis dataKey="label" tick={axis} minTickGap={24} />
          <YAxis allowDecimals={false} tick={axis} />
          <Tooltip />
          <Area
            dataKey="queued"
            name="queued"
            type="stepAfter"
            stroke="var(--running-bar)"
            fill="var(--running-bg)"
            isAnimationActive={false}
          />
        </AreaChart>
      </Frame>
    </div>
  );
}
