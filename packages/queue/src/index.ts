export * from "./job-catalog.ts";
export * from "./redis-keys.ts";
export * from "./create-redis.ts";
export * from "./run-queue.ts";
export * from "./pub-sub.ts";
export * from "./redis-run-event-publisher.ts";
export * from "./check-eviction-policy.ts";
export * from "./delete-keys-with-prefix.ts";
