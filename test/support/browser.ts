// A real browser for the console's tests: Debian's Chromium driven by playwright-core (which downloads
// no browser of its own). Every page records what would show a broken or unsafe console: script
// dialogs (an injected `alert`), uncaught page errors, console errors and requests that failed.
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** The flags this machine needs (no GPU, no sandbox as root, nothing fetched from Google). */
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-quic",
];

/** Where `AGENTQ_SCREENSHOTS=1 npx vitest run test/console-*.test.ts` writes the README's screenshots. */
const SCREENSHOTS_DIRECTORY = fileURLToPath(new URL("../../docs/screenshots", import.meta.url));

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}

export interface ConsolePage {
  page: Page;
  context: BrowserContext;
  /** Messages of script dialogs the page opened (`alert`, `confirm`): a console that runs injected HTML shows up here. */
  dialogs: string[];
  /** Uncaught exceptions in the page. */
  pageErrors: string[];
  /** `console.error` lines of the page, CSP violations included. */
  consoleErrors: string[];
}

/** A fresh browser context (its own sessionStorage) with one page, watched for dialogs and errors. */
export async function openConsolePage(browser: Browser, options: { width?: number; height?: number } = {}): Promise<ConsolePage> {
  const context = await browser.newContext({ viewport: { width: options.width ?? 1280, height: options.height ?? 800 } });
  const page = await context.newPage();
  const watched: ConsolePage = { page, context, dialogs: [], pageErrors: [], consoleErrors: [] };
  page.on("dialog", (dialog) => {
    watched.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on("pageerror", (error) => watched.pageErrors.push(String(error)));
  page.on("console", (message) => {
    if (message.type() === "error") watched.consoleErrors.push(message.text());
  });
  return watched;
}

/** Opens the console at the API's `/` (which redirects) and signs in with the token. */
export async function signIn(page: Page, baseUrl: string, token: string): Promise<void> {
  await page.goto(`${baseUrl}/`);
  await page.getByLabel("API token").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("button", { name: "Sign out" }).waitFor();
}

/**
 * Saves a screenshot for the README when AGENTQ_SCREENSHOTS=1 (docs/screenshots/<name>.png);
 * otherwise does nothing, so ordinary test runs leave the checkout untouched.
 */
export async function saveScreenshot(page: Page, name: string): Promise<void> {
  if (process.env.AGENTQ_SCREENSHOTS !== "1") return;
  await mkdir(SCREENSHOTS_DIRECTORY, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS_DIRECTORY, `${name}.png`), fullPage: false });
}
