import type { LogLevel } from "../config/environment-schema.ts";
import { describeStartupFailure, type StartupTargets } from "../config/describe-startup-failure.ts";
import { createLogger, type Logger } from "../logging/create-logger.ts";

/** What a long-running process stops on SIGTERM/SIGINT. */
export interface StoppableService {
  /** Graceful stop; its rejection makes the process exit with code 1. */
  close(): Promise<void>;
}

/** The process's tracing, as far as its lifecycle needs it (structurally `Tracing` of @agentq/tracing). */
export interface ServiceProcessTracing {
  enabled: boolean;
  /** Exports the last spans; awaited after the service closed, before the process exits. */
  shutdown(): Promise<void>;
}

export interface ServiceProcessOptions<Config extends StartupTargets & { logLevel: LogLevel }, Service extends StoppableService> {
  /** The logger's `name` (`agentq-api`). */
  name: string;
  /** How the start failure names the service: `the API` gives "the API failed to start: ...". */
  label: string;
  /** Parses the process environment; a throw is printed (its message only) and the process exits with code 1. */
  parseConfig(): Config;
  /** Starts the service. `logger` is the process's logger, at the configured level. */
  start(config: Config, logger: Logger): Promise<Service>;
  /** The logger to use once started. Default the process's logger (a service may build its own, with secrets to scrub). */
  loggerOf?(service: Service): Logger;
  tracing: ServiceProcessTracing;
  /** Logged at info when a signal arrives. */
  stoppingMessage: string;
  /** Logged at info once stopped. Default none. */
  stoppedMessage?: string;
  /** Logged at error when the graceful stop fails. */
  stopFailedMessage: string;
  /**
   * Log an uncaught exception or unhandled rejection as one fatal JSON line and exit with code 1.
   * Default false: Node's own handling (a stack trace on stderr, exit code 1).
   */
  exitOnUncaughtErrors?: boolean;
}

/**
 * The lifecycle of a service process (the API, the worker): parse the environment, start the service
 * (a failure is one fatal line naming the setting to check, then exit 1), stop gracefully on the first
 * SIGTERM or SIGINT (close, then flush the last traces), and exit 0, or 1 when the stop failed.
 */
export async function runServiceProcess<Config extends StartupTargets & { logLevel: LogLevel }, Service extends StoppableService>(
  options: ServiceProcessOptions<Config, Service>,
): Promise<void> {
  let config: Config;
  try {
    config = options.parseConfig();
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
  const processLogger = createLogger({ level: config.logLevel, name: options.name });
  let service: Service;
  try {
    service = await options.start(config, processLogger);
  } catch (error) {
    const failure = describeStartupFailure(error, config);
    processLogger.fatal({ variables: failure.variables }, `${options.label} failed to start: ${failure.message}`);
    process.exit(1);
  }

  const logger = options.loggerOf?.(service) ?? processLogger;
  const { tracing } = options;
  if (tracing.enabled) logger.info("exporting OpenTelemetry traces (OTEL_EXPORTER_OTLP_ENDPOINT is set)");
  let stopping = false;
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      logger.info({ signal }, options.stoppingMessage);
      service
        .close()
        // The last spans leave before the process does.
        .then(() => tracing.shutdown().catch((error: unknown) => logger.warn({ err: error }, "could not export the last traces")))
        .then(
          () => {
            if (options.stoppedMessage !== undefined) logger.info(options.stoppedMessage);
            process.exit(0);
          },
          (error: unknown) => {
            logger.error({ err: error }, options.stopFailedMessage);
            process.exit(1);
          },
        );
    });
  }

  if (options.exitOnUncaughtErrors === true) {
    // A bug that escapes every handler leaves the process in an unknown state: log it and exit so the
    // supervisor restarts a clean one.
    process.on("uncaughtException", (error) => {
      logger.fatal({ err: error }, "uncaught exception; exiting");
      process.exit(1);
    });
    process.on("unhandledRejection", (reason) => {
      logger.fatal({ err: reason }, "unhandled promise rejection; exiting");
      process.exit(1);
    });
  }
}
