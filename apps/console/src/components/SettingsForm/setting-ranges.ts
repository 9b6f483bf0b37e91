/**
 * The numeric settings' ranges, to show beside each field. The server clamps every value to its
 * range (packages/core/src/settings/agent-settings.ts, NUMERIC_SETTINGS) and answers the stored
 * value, which the form then shows: this table only informs, it never decides.
 */
export const SETTING_RANGES: Record<string, { min: number; max: number }> = {
  agent_max_rounds: { min: 1, max: 200 },
  agent_max_tool_calls: { min: 0, max: 100_000 },
  agent_stream_timeout_seconds: { min: 1, max: 3600 },
  agent_input_token_budget: { min: 256, max: 2_000_000 },
  agent_input_token_hard_max: { min: 1000, max: 2_000_000 },
  agent_repeated_call_limit: { min: 2, max: 50 },
  approval_ttl_seconds: { min: 60, max: 2_592_000 },
  job_max_running: { min: 0, max: 1000 },
  job_max_runtime_seconds: { min: 1, max: 604_800 },
  job_output_limit_bytes: { min: 1024, max: 1_073_741_824 },
};
