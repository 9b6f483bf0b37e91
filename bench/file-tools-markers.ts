/** Paths bench/file-tools.ts `access`es (and fails to) around its measured loop, for bench/count-syscalls.ts. */
export const START_MARKER = "/agentq-bench-file-tools-start";
export const END_MARKER = "/agentq-bench-file-tools-end";
