/**
 * Every Redis key and channel agentq creates carries the QUEUE_PREFIX (docs/design.md, "Deploying on many hosts"), so
 * several deployments can share one Redis.
 */
export function runChannel(prefix: string, runId: string): string {
  return `${prefix}:run:${runId}`;
}

/** Control messages to workers (cancel a run that one of them is executing). */
export function controlChannel(prefix: string): string {
  return `${prefix}:control`;
}
