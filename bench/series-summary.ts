// The side-by-side table of bench/series.ts: what one interleaved series of agentq and a peer
// measured, round by round, with medians and agentq's ratio to the peer. Pure: tested on its own
// (test/bench-series-summary.test.ts).

/** What one run of a side measured in one workload (null: that side does not report it). */
export interface SideFigures {
  runsPerSecond: number;
  /** W2: the decision → the approved call executed, p50, ms (the peer harness's end point: "write_note executed"). */
  resumeP50Ms: number | null;
  /** W2, agentq: the decision → that call's tool.completed received by the client on the WebSocket, p50, ms (a peer has no client: null). */
  resumeDeliveredP50Ms: number | null;
  /** Peak RSS of each process of the side, MB (agentq: API and worker; a peer: its one process). */
  peakRssMb: number[];
  failed: number;
}

export interface SeriesRound {
  workload: string;
  agentq: SideFigures;
  peer: SideFigures;
}

export interface WorkloadSummary {
  workload: string;
  rounds: number;
  agentqRunsPerSecond: number[];
  peerRunsPerSecond: number[];
  /** agentq's runs/s over the peer's, round by round (the two ran back to back). */
  ratios: number[];
  medianRatio: number;
  agentqResumeP50Ms: number[];
  peerResumeP50Ms: number[];
  agentqResumeDeliveredP50Ms: number[];
  agentqPeakRssMb: number;
  peerPeakRssMb: number;
  failed: { agentq: number; peer: number };
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

const round2 = (value: number) => Math.round(value * 100) / 100;

/** One summary a workload, in the order the workloads first appear. */
export function summarizeSeries(rounds: readonly SeriesRound[]): WorkloadSummary[] {
  const workloads = [...new Set(rounds.map((entry) => entry.workload))];
  return workloads.map((workload) => {
    const ofWorkload = rounds.filter((entry) => entry.workload === workload);
    const ratios = ofWorkload.map((entry) => round2(entry.agentq.runsPerSecond / entry.peer.runsPerSecond));
    // The rounds' figures of one kind, leaving out those a side does not report.
    const reported = (figure: (entry: SeriesRound) => number | null) =>
      ofWorkload.flatMap((entry) => {
        const value = figure(entry);
        return value === null ? [] : [value];
      });
    const peakRss = (side: "agentq" | "peer") => Math.max(0, ...ofWorkload.flatMap((entry) => entry[side].peakRssMb));
    const failed = (side: "agentq" | "peer") => ofWorkload.reduce((sum, entry) => sum + entry[side].failed, 0);
    return {
      workload,
      rounds: ofWorkload.length,
      agentqRunsPerSecond: ofWorkload.map((entry) => entry.agentq.runsPerSecond),
      peerRunsPerSecond: ofWorkload.map((entry) => entry.peer.runsPerSecond),
      ratios,
      medianRatio: round2(median(ratios)),
      agentqResumeP50Ms: reported((entry) => entry.agentq.resumeP50Ms),
      peerResumeP50Ms: reported((entry) => entry.peer.resumeP50Ms),
      agentqResumeDeliveredP50Ms: reported((entry) => entry.agentq.resumeDeliveredP50Ms),
      agentqPeakRssMb: peakRss("agentq"),
      peerPeakRssMb: peakRss("peer"),
      failed: { agentq: failed("agentq"), peer: failed("peer") },
    };
  });
}

const list = (values: readonly number[]) => values.map((value) => String(Math.round(value * 10) / 10)).join(" / ");

/** The summaries as a Markdown table (one row a side and workload) and a line of ratios a workload. */
export function seriesMarkdown(summaries: readonly WorkloadSummary[], peerName: string): string {
  const lines = [
    "| workload | side | runs/s (median) | resume p50 to the call executed, ms (median) | to the client, ms (median) | peak RSS, MB | failed |",
    "| --- | --- | --- | --- | --- | --- | --- |",
  ];
  for (const summary of summaries) {
    const resume = (values: number[]) => (values.length === 0 ? "–" : `${list(values)} (${Math.round(median(values))})`);
    lines.push(
      `| ${summary.workload} | agentq | ${list(summary.agentqRunsPerSecond)} (${round2(median(summary.agentqRunsPerSecond))}) | ${resume(summary.agentqResumeP50Ms)} | ${resume(summary.agentqResumeDeliveredP50Ms)} | ${summary.agentqPeakRssMb} | ${summary.failed.agentq} |`,
      `| ${summary.workload} | ${peerName} | ${list(summary.peerRunsPerSecond)} (${round2(median(summary.peerRunsPerSecond))}) | ${resume(summary.peerResumeP50Ms)} | – | ${summary.peerPeakRssMb} | ${summary.failed.peer} |`,
    );
  }
  lines.push("");
  for (const summary of summaries) {
    lines.push(`${summary.workload}: agentq / ${peerName} runs/s by round ${summary.ratios.join(", ")} (median ${summary.medianRatio})`);
  }
  return lines.join("\n");
}
