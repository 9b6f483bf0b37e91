/**
 * The environment a run_command process gets: only the variables named in `allowList`
 * (`TOOL_ENV_ALLOW`) that are set in `processEnv`. Everything else the worker holds (DATABASE_URL,
 * REDIS_URL, provider API keys, APPROVAL_SECRET) stays out of reach of model-written commands.
 * Called once by the app at boot; the result is passed to createRunCommandTool.
 */
export function buildToolEnvironment(processEnv: Readonly<Record<string, string | undefined>>, allowList: readonly string[]): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const rawName of allowList) {
    const name = rawName.trim();
    if (name === "") continue;
    const value = processEnv[name];
    if (value !== undefined) environment[name] = value;
  }
  return environment;
}
