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

function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}

let sharedLaunch: Promise<Browser> | undefined;

/**
 * One browser for every console test file that a vitest worker runs (the files share its module
 * cache: `isolate: false`), each file in contexts of its own: a launch costs about 1.5 s of CPU,
 * which eleven files paid each. Playwright kills it when the worker process exits; one that crashed
 * or was closed is launched again.
 */
export function sharedBrowser(): Promise<Browser> {
  if (!sharedLaunch) {
    const launch = launchBrowser();
    sharedLaunch = launch;
    const forget = () => {
      if (sharedLaunch === launch) sharedLaunch = undefined;
    };
    launch.then((browser) => browser.once("disconnected", forget), forget);
  }
  return sharedLaunch;
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

/** The window size the console's tests use unless one asks for another. */
export function viewportOf(options: { width?: number; height?: number }): { width: number; height: number } {
  return { width: options.width ?? 1280, height: options.height ?? 800 };
}

/** A fresh browser context (its own sessionStorage and cache) with one page, watched for dialogs and errors. */
export async function openConsolePage(browser: Browser, options: { width?: number; height?: number } = {}): Promise<ConsolePage> {
  const context = await browser.newContext({ viewport: viewportOf(options) });
  return watchPage(await context.newPage());
}

/** A new page in an existing context, watched for dialogs and errors. */
export async function openPageIn(context: BrowserContext): Promise<ConsolePage> {
  return watchPage(await context.newPage());
}

function watchPage(page: Page): ConsolePage {
  const watched: ConsolePage = { page, context: page.context(), dialogs: [], pageErrors: [], consoleErrors: [] };
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

/** Opens the console at the API's `/` (which redirects) and signs in with the token through the sign-in form. */
export async function signIn(page: Page, baseUrl: string, token: string): Promise<void> {
  await page.goto(`${baseUrl}/`);
  await page.getByLabel("API token").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("button", { name: "Sign out" }).waitFor();
}

/** Where the console keeps its token (apps/console/src/api/token-store.ts). */
const TOKEN_STORAGE_KEY = "agentq.token";

/**
 * Opens the console at the API's `/` already signed in: the token is put where the console reads it
 * (the tab's sessionStorage, emptied of anything an earlier visit left) before its scripts run, as
 * when a signed-in person reloads the tab. Skips the sign-in form and the script it needs; the tests
 * of that form use signIn.
 */
export async function openSignedIn(page: Page, baseUrl: string, token: string): Promise<void> {
  // A string, as the other page scripts here: the tests are type-checked without the DOM's types.
  const seed = await page.addInitScript({
    content: `sessionStorage.clear(); sessionStorage.setItem(${JSON.stringify(TOKEN_STORAGE_KEY)}, ${JSON.stringify(token)});`,
  });
  try {
    await page.goto(`${baseUrl}/`);
  } finally {
    // Only this load is seeded: a reload later in the test keeps what the console stored since.
    await seed.dispose();
  }
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
