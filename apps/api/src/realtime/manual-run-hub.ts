import type { OwnedRun, RunChannelMessage } from "@agentq/core";
import type { RunChannelListener, RunSubscriptionHub } from "./run-subscription-hub.ts";

/** For tests of followRun: a hub whose channel the test publishes on by hand. */
export function manualRunHub() {
  let listener: RunChannelListener | undefined;
  const hub = {
    async subscribe(_run: OwnedRun, onMessage: RunChannelListener) {
      listener = onMessage;
      return () => {
        listener = undefined;
      };
    },
  } as unknown as RunSubscriptionHub;
  return { hub, publish: (message: RunChannelMessage) => listener?.(message), subscribed: () => listener !== undefined };
}
