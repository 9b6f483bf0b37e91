import { describe, expect, it } from "vitest";
import { median, type SeriesRound, seriesMarkdown, summarizeSeries } from "../bench/series-summary.ts";

const side = (runsPerSecond: number, resumeP50Ms: number | null, peakRssMb: number[], failed = 0, resumeDeliveredP50Ms: number | null = null) => ({
  runsPerSecond,
  resumeP50Ms,
  resumeDeliveredP50Ms,
  peakRssMb,
  failed,
});

describe("bench series summary", () => {
  const rounds: SeriesRound[] = [
    { workload: "W1", agentq: side(100, null, [180, 170]), peer: side(200, null, [150]) },
    { workload: "W1", agentq: side(150, null, [185, 175]), peer: side(100, null, [160]) },
    { workload: "W1", agentq: side(90, null, [181, 171]), peer: side(120, null, [155]) },
    { workload: "W2", agentq: side(60, 240, [190, 172], 1, 300), peer: side(90, 100, [165]) },
    { workload: "W2", agentq: side(66, 210, [186, 176], 0, 270), peer: side(80, 120, [166]) },
  ];

  it("ratios pair each round's two sides, and medians are taken of them, not of the sides' medians", () => {
    const [w1, w2] = summarizeSeries(rounds);
    expect(w1).toMatchObject({ workload: "W1", rounds: 3, ratios: [0.5, 1.5, 0.75], medianRatio: 0.75, agentqPeakRssMb: 185, peerPeakRssMb: 160 });
    // The sides' medians (100 and 120) would say 0.83.
    expect(median(w1!.agentqRunsPerSecond) / median(w1!.peerRunsPerSecond)).toBeCloseTo(0.833, 3);
    expect(w2).toMatchObject({
      rounds: 2,
      ratios: [0.67, 0.83],
      medianRatio: 0.75,
      agentqResumeP50Ms: [240, 210],
      peerResumeP50Ms: [100, 120],
      agentqResumeDeliveredP50Ms: [300, 270],
      failed: { agentq: 1, peer: 0 },
    });
  });

  it("median of an even count is the mean of the middle two; of none, NaN", () => {
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([3])).toBe(3);
    expect(median([])).toBeNaN();
  });

  it("the table has a row a side and workload and a ratio line a workload", () => {
    const text = seriesMarkdown(summarizeSeries(rounds), "openai-agents");
    expect(text).toContain("| W1 | agentq | 100 / 150 / 90 (100) | – | – | 185 | 0 |");
    expect(text).toContain("| W2 | agentq | 60 / 66 (63) | 240 / 210 (225) | 300 / 270 (285) | 190 | 1 |");
    expect(text).toContain("| W2 | openai-agents | 90 / 80 (85) | 100 / 120 (110) | – | 166 | 0 |");
    expect(text).toContain("W1: agentq / openai-agents runs/s by round 0.5, 1.5, 0.75 (median 0.75)");
  });
});
