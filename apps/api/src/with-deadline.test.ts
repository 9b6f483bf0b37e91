import { describe, expect, it } from "vitest";
import { withDeadline } from "./with-deadline.ts";

describe("withDeadline", () => {
  it("settles as the promise does when it settles in time", async () => {
    expect(await withDeadline(Promise.resolve("answer"), 1000, () => "late")).toBe("answer");
    await expect(withDeadline(Promise.reject(new Error("refused")), 1000, () => "late")).rejects.toThrow("refused");
  });

  it("settles as the deadline callback does when the promise takes longer", async () => {
    const never = new Promise<string>(() => undefined);
    expect(await withDeadline(never, 5, () => "late")).toBe("late");
    await expect(
      withDeadline(never, 5, () => {
        throw new Error("no answer within 5 ms");
      }),
    ).rejects.toThrow("no answer within 5 ms");
  });

  it("ignores a rejection that comes after the deadline", async () => {
    let reject: (error: Error) => void = () => undefined;
    const late = new Promise<string>((_resolve, rejectLate) => (reject = rejectLate));
    expect(await withDeadline(late, 5, () => "late")).toBe("late");
    reject(new Error("too late"));
    await new Promise((resolve) => setTimeout(resolve, 10));
  });
});
