// One browser and one agentq stack for a console test file, with the checks every console page gets:
// no script dialog (an injected `alert` would show up there), no uncaught page error, and nothing the
// console's own Content-Security-Policy had to refuse.
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect, vi } from "vitest";
import { type ConsolePage, launchBrowser, openConsolePage, signIn } from "./browser.ts";
import { startTestStack, type TestStack, type TestStackOptions } from "./test-stack.ts";

export interface ConsoleSession {
  readonly stack: TestStack;
  /** A fresh browser context (its own sessionStorage) and page, not signed in. */
  openPage(options?: { width?: number; height?: number }): Promise<ConsolePage>;
  /** A fresh page signed in with the token (default: the admin's). */
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
  const opened: ConsolePage[] = [];

  beforeAll(async () => {
    [stack, browser] = await Promise.all([startTestStack(await stackOptions()), launchBrowser()]);
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  afterEach(async () => {
    for (const page of opened.splice(0)) {
      expect(page.dialogs).toEqual([]);
      expect(page.pageErrors).toEqual([]);
      expect(page.consoleErrors.filter((line) => /Content Security Policy/i.test(line))).toEqual([]);
      await page.context.close();
    }
  });

  const session: ConsoleSession = {
    get stack() {
      if (!stack) throw new Error("the console session's stack is used before beforeAll ran");
      return stack;
    },
    async openPage(options = {}) {
      if (!browser) throw new Error("the console session's browser is used before beforeAll ran");
      const page = await openConsolePage(browser, options);
      opened.push(page);
      return page;
    },
    async open(token, options = {}) {
      const { page } = await session.openPage(options);
      await signIn(page, session.stack.url, token ?? session.stack.api.adminToken);
      return page;
    },
  };
  return session;
}
