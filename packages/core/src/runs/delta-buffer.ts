/**
 * Coalesces streamed text into one publish per interval: a model streaming 100 tokens/s would
 * otherwise cost 100 Redis PUBLISHes per second per run. Publishing is best effort (deltas are
 * live-only), so failures are swallowed.
 */
export function createDeltaBuffer(publish: (text: string) => Promise<void>, intervalMs: number) {
  let pending = "";
  let timer: NodeJS.Timeout | null = null;
  let inFlight: Promise<void> = Promise.resolve();

  const send = () => {
    timer = null;
    if (pending.length === 0) return;
    const text = pending;
    pending = "";
    inFlight = inFlight.then(() => publish(text)).catch(() => undefined);
  };

  return {
    push(text: string): void {
      pending += text;
      if (timer === null) timer = setTimeout(send, intervalMs);
    },
    /** Drops what is pending and sends nothing more. */
    discard(): void {
      if (timer !== null) clearTimeout(timer);
      timer = null;
      pending = "";
    },
    async flush(): Promise<void> {
      if (timer !== null) clearTimeout(timer);
      send();
      await inFlight;
    },
  };
}
