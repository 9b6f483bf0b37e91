// The real process sandbox for tests (bubblewrap, as the workers use it), probed once per test file.
import { probeProcessSandbox, type ProcessSandbox } from "@agentq/core";

let probed: Promise<ProcessSandbox> | undefined;

/** The bubblewrap sandbox; fails the test (with the probe's reason) where it cannot start. */
export function testSandbox(): Promise<ProcessSandbox> {
  probed ??= probeProcessSandbox({ mode: "bwrap", searchPath: process.env.PATH ?? "/usr/bin:/bin" }).then((availability) => {
    if (!availability.available) throw new Error(`the process sandbox is needed by this test and cannot start: ${availability.reason}`);
    return availability.sandbox;
  });
  return probed;
}
