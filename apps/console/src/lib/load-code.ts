import { type ComponentType, type LazyExoticComponent, lazy } from "react";

/**
 * A part of the console whose file could not be fetched. Usually the console was updated since the
 * tab was opened (its files are named after their content, so the old ones are gone), or the network
 * failed. Trying again in the same tab cannot help (the browser keeps a failed module import for the
 * page's lifetime): only a reload, which fetches the current console, can.
 */
export class CodeLoadError extends Error {
  constructor(cause: unknown) {
    super("This part of the console could not be loaded: it may have been updated since this tab was opened, or the network failed. Reload the page.", {
      cause,
    });
    this.name = "CodeLoadError";
  }
}

/** Fetches a part of the console (a dynamic import), failing with CodeLoadError. */
export async function loadCode<Module>(load: () => Promise<Module>): Promise<Module> {
  try {
    return await load();
  } catch (error) {
    throw new CodeLoadError(error);
  }
}

/**
 * A component loaded from its own file the first time it is rendered (React.lazy), failing with
 * CodeLoadError; a Suspense boundary above it shows the loading state meanwhile.
 */
export function lazyComponent<Props extends object>(load: () => Promise<ComponentType<Props>>): LazyExoticComponent<ComponentType<Props>> {
  return lazy(async () => ({ default: await loadCode(load) }));
}
