import { describe, expect, it } from "vitest";
import { OutputCapture } from "./output-capture.ts";

describe("OutputCapture", () => {
  it("keeps everything under the limit, unmarked", () => {
    const capture = new OutputCapture(16);
    capture.append(Buffer.from("hello "));
    capture.append(Buffer.from("world"));
    expect(capture.text()).toBe("hello world");
    expect(capture.omittedBytes).toBe(0);
    expect(capture.totalBytes).toBe(11);
  });

  it("keeps the head and the tail and says how much of the middle was cut", () => {
    const capture = new OutputCapture(10);
    for (const piece of ["AAAA", "ABBB", "BBBB", "BBCC", "CCCD"]) capture.append(Buffer.from(piece));
    expect(capture.totalBytes).toBe(20);
    expect(capture.omittedBytes).toBe(10);
    expect(capture.text()).toBe("AAAAA\n[... 10 bytes of output omitted ...]\nCCCCD");
  });

  it("handles one chunk larger than the whole limit", () => {
    const capture = new OutputCapture(4);
    capture.append(Buffer.from("0123456789"));
    expect(capture.text()).toBe("01\n[... 6 bytes of output omitted ...]\n89");
  });
});
