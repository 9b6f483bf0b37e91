// A browser context and one agentq stack for a console test file, with the checks every console page gets:
// no script dialog (an injected `alert` would show up there), no uncaught page error, and nothing the
// console's own Content-Security-Policy had to refuse.
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect, vi } from "vitest";
import { type ConsolePage, openConsolePage, openPageIn, openSignedIn, sharedBrowser, viewportOf } from "./browser.ts";
import { startTestStack, type TestStack, type TestStackOptions } from "./test-stack.ts";

export interface ConsoleSession {
  readonly stack: TestStack;
  /** A fresh browser context (its own sessionStorage and cache) and page, not signed in: for the sign-in form's tests. */
  openPage(options?: { width?: number; height?: number }): Promise<ConsolePage>;
  /**
   * A page showing the console freshly loaded and signed in with the token (default: the admin's),
   * without the sign-in form. The page may be one an earlier test of the file used: loaded again,
   * with nothing of that test's left in its sessionStorage.
   */
  open(token?: string, options?: { width?: number; height?: number }): Promise<Page>;
}

/**
 * Registers the file's hooks; call at the top level of a test file. `stackOptions` is called in
 * beforeAll, so it may name services the file starts first (an SMTP server).
 */
export function useConsoleSession(stackOptions: () => TestStackOptions | Promise<TestStackOptions> = () => ({})): ConsoleSession {
  // A browser test waits on a page, a worker and the fake model at once; on a loaded 2-core machine
  // (three test files at a time) a step can take several seconds, so each test gets a minute.
  vi.setConfig({ testTimeout: 60_000 });
  let stack: TestStack | undefined;
  let browser: Browser | undefined;
  /** The context of the pages `open` signs in, shared by the file's tests, so its cache is too. */
  let signedInContext: BrowserContext | undefined;
  /** Pages of the current test: `open`'s go back to `reusable` after the test, `openPage`'s are closed. */
  const opened: { watched: ConsolePage; reuse: boolean }[] = [];
  /** Pages earlier tests passed their checks with, for `open` to load the console in again. */
  const reusable: ConsolePage[] = [];

  beforeAll(async () => {
    [stack, browser] = await Promise.all([startTestStack(await stackOptions()), sharedBrowser()]);
  });

  afterAll(async () => {
    // The browser stays for the worker's next console file; what this file opened goes.
    await signedInContext?.close();
    await stack?.close();
  });

  afterEach(async () => {
    const pages = opened.splice(0);
    try {
      // A page kept for the next test shows nothing meanwhile (no polling, no socket to the stack);
      // leaving the console here also counts anything its unloading does against this test.
      for (const { watched, reuse } of pages) if (reuse) await watched.page.goto("about:blank");
      for (const { watched } of pages) {
        expect(watched.dialogs).toEqual([]);
        expect(watched.pageErrors).toEqual([]);
        expect(watched.consoleErrors.filter((line) => /Content Security Policy/i.test(line))).toEqual([]);
      }
    } catch (failure) {
      // A page that failed its checks is not used again.
      await Promise.all(pages.map(({ watched, reuse }) => (reuse ? watched.page.close() : watched.context.close())));
      throw failure;
    }
    for (const { watched, reuse } of pages) {
      if (reuse) reusable.push(watched);
      else await watched.context.close();
    }
  });

  function requireBrowser(): Browser {
    if (!browser) throw new Error("the console session's browser is used before beforeAll ran");
    return browser;
  }

  const session: ConsoleSession = {
    get stack() {
      if (!stack) throw new Error("the console session's stack is used before beforeAll ran");
      return stack;
    },
    async openPage(options = {}) {
      const watched = await openConsolePage(requireBrowser(), options);
      opened.push({ watched, reuse: false });
      return watched;
    },
    async open(token, options = {}) {
      signedInContext ??= await requireBrowser().newContext();
      let watched = reusable.pop();
      while (watched?.page.isClosed()) watched = reusable.pop();
      watched ??= await openPageIn(signedInContext);
      // What the page recorded belongs to the test that used it before (and passed its checks).
      watched.dialogs.splice(0);
      watched.pageErrors.splice(0);
      watched.consoleErrors.splice(0);
      opened.push({ watched, reuse: true });
      await watched.page.setViewportSize(viewportOf(options));
      await openSignedIn(watched.page, session.stack.url, token ?? session.stack.api.adminToken);
      return watched.page;
    },
  };
  return session;
}
