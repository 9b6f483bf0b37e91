import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { RunSocket } from "./run-socket.ts";
import type { RunEvent } from "./types.ts";

/** A socket the test drives: it records what the console sends and delivers what the test says. */
class FakeSocket {
  readyState = 0;
  sent: unknown[] = [];
  onopen: (() => void) | null = null;
  onmessage: ((message: { data: string }) => void) | null = null;
  onclose: (() => void) | null = null;
  send(text: string) {
    this.sent.push(JSON.parse(text));
  }
  close() {
    this.readyState = 3;
  }
  open() {
    this.readyState = 1;
    this.onopen?.();
  }
  deliver(message: unknown) {
    this.onmessage?.({ data: JSON.stringify(message) });
  }
  drop() {
    this.readyState = 3;
    this.onclose?.();
  }
}

function event(seq: number, type = "round.started", runId = "run_1"): { type: "event"; run_id: string; event: RunEvent } {
  return { type: "event", run_id: runId, event: { seq, type, at: "2026-01-01T00:00:00.000Z", data: {} } };
}

describe("RunSocket and RunEventStream", () => {
  let sockets: FakeSocket[];
  let socket: RunSocket;

  beforeEach(() => {
    vi.useFakeTimers();
    sockets = [];
    socket = new RunSocket({
      url: () => "ws://test/api/ws?token=t",
      createSocket: () => {
        const created = new FakeSocket();
        sockets.push(created);
        return created as unknown as WebSocket;
      },
    });
  });

  afterEach(() => {
    socket.close();
    vi.useRealTimers();
  });

  it("subscribes from the start, then after a drop resubscribes with the last seq seen", () => {
    socket.follow("run_1");
    sockets[0]!.open();
    expect(sockets[0]!.sent).toEqual([{ type: "subscribe", run_id: "run_1", after: 0 }]);
    sockets[0]!.deliver(event(1, "run.queued"));
    sockets[0]!.deliver(event(2, "run.started"));
    sockets[0]!.drop();
    vi.advanceTimersByTime(10_000);
    expect(sockets).toHaveLength(2);
    sockets[1]!.open();
    expect(sockets[1]!.sent).toEqual([{ type: "subscribe", run_id: "run_1", after: 2 }]);
  });

  it("subscribes at once on a connection that is already open", () => {
    const release = socket.hold();
    sockets[0]!.open();
    socket.follow("run_2");
    expect(sockets[0]!.sent).toEqual([{ type: "subscribe", run_id: "run_2", after: 0 }]);
    release();
  });

  it("shows each event once, whatever is repeated", () => {
    const added: number[] = [];
    const { stream } = socket.follow("run_1", (events) => added.push(...events.map((item) => item.seq)));
    sockets[0]!.open();
    for (const seq of [1, 2, 2, 1, 3, 3]) sockets[0]!.deliver(event(seq));
    vi.advanceTimersByTime(100);
    expect(stream.getSnapshot().events.map((item) => item.seq)).toEqual([1, 2, 3]);
    expect(added).toEqual([1, 2, 3]);
  });

  it("collects streamed text until the round's message is complete", () => {
    const { stream } = socket.follow("run_1");
    sockets[0]!.open();
    sockets[0]!.deliver({ type: "delta", run_id: "run_1", text: "Hel" });
    sockets[0]!.deliver({ type: "delta", run_id: "run_1", text: "lo" });
    vi.advanceTimersByTime(100);
    expect(stream.getSnapshot().streamingText).toBe("Hello");
    sockets[0]!.deliver(event(1, "message.completed"));
    vi.advanceTimersByTime(100);
    expect(stream.getSnapshot().streamingText).toBe("");
  });

  it("closes after the run's terminal event when nothing else holds it, and does not reconnect", () => {
    const { stream } = socket.follow("run_1");
    sockets[0]!.open();
    sockets[0]!.deliver(event(1, "run.queued"));
    sockets[0]!.deliver(event(2, "run.completed"));
    vi.advanceTimersByTime(60_000);
    expect(sockets).toHaveLength(1);
    expect(sockets[0]!.readyState).toBe(3);
    expect(stream.getSnapshot().connection).toBe("closed");
  });

  it("routes messages to their run only", () => {
    const { stream } = socket.follow("run_1");
    sockets[0]!.open();
    sockets[0]!.deliver(event(1, "run.queued", "run_2"));
    vi.advanceTimersByTime(100);
    expect(stream.getSnapshot().events).toEqual([]);
  });

  it("unsubscribes a run when its last follower leaves", () => {
    const hold = socket.hold();
    const first = socket.follow("run_1");
    const second = socket.follow("run_1");
    sockets[0]!.open();
    first.release();
    expect(sockets[0]!.sent).toEqual([{ type: "subscribe", run_id: "run_1", after: 0 }]);
    second.release();
    expect(sockets[0]!.sent.at(-1)).toEqual({ type: "unsubscribe", run_id: "run_1" });
    hold();
  });
});
