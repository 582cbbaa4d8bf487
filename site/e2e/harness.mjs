// The browser tests' shared harness: the site served by the real binary,
// one headless Chromium, and the waits every test uses. Each test file
// calls serve() once; base and browser are set before its first test.
import { before, after } from "node:test";
import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { once } from "node:events";
import { createRequire } from "node:module";
import assert from "node:assert/strict";
import { chromium } from "playwright-core";

export const root = new URL("../../", import.meta.url).pathname;
export const shots = new URL("./screenshots/", import.meta.url).pathname;
mkdirSync(shots, { recursive: true });

let server;
export let base, browser;

// startServer starts the site (uldp serve with flags) on a free port and
// returns the process and the site's address.
export async function startServer(flags = []) {
  const proc = spawn(root + "bin/uldp", ["serve", "--addr", "127.0.0.1:0", ...flags], { stdio: ["ignore", "pipe", "inherit"] });
  const [line] = await once(proc.stdout, "data");
  return { proc, base: String(line).match(/http:\/\/\S+\//)[0] };
}

// serve starts the site (uldp serve with flags) and the browser before
// the file's tests and stops them after.
export function serve(flags = []) {
  before(async () => {
    ({ proc: server, base } = await startServer(flags));
    browser = await launch();
  });

  after(async () => {
    await browser?.close();
    server?.kill();
  });
}

// launch starts the headless Chromium the tests drive.
export function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

// open loads the site at hash and waits for the engine; it returns the page
// and the lists of console errors and warnings seen. init, if given, gets
// the page before the site loads (to add an init script, say).
export async function open(hash = "", init = null) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  const errors = [], warnings = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); else if (m.type() === "warning") warnings.push(m.text()); });
  page.on("pageerror", (e) => errors.push(String(e)));
  if (init) await init(page);
  await page.goto(base + hash);
  await page.waitForSelector("body[data-ready=true]", { timeout: 20000 });
  return { page, errors, warnings };
}

// noWorkers makes a page a browser without Web Workers: a lesson then
// computes on the page's thread, a slice per frame.
export const noWorkers = (page) => page.addInitScript(() => { delete window.Worker; });

export const state = async (page) => new URLSearchParams((await page.evaluate(() => location.hash)).slice(1));
export const status = (page) => page.textContent("#status");
// readout reads one readout once the lesson has finished computing (a long
// run computes between frames with a "computing" readout).
export const idle = (page) => page.waitForFunction(() => !document.querySelector('#readouts dd[data-name="computing"]'), null, { timeout: 60000 });
export const readout = async (page, name) => { await idle(page); return page.textContent(`#readouts dd[data-name="${name}"]`); };
// prose waits for the lesson text, which is fetched after the switch.
export const prose = (page, re) => page.waitForFunction((src) => new RegExp(src).test(document.querySelector("#prose").textContent), re.source, { timeout: 10000 });

// lesson waits until the page shows lesson name, interactive.
export const lesson = (page, name) => page.waitForSelector(`body[data-lesson="${name}"]`, { timeout: 20000 });

const axePath = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

// axe runs axe-core's every rule but the experimental ones and fails with
// the violations it finds, each with the elements it found it on. The
// page must let the test inject it (bypassCSP).
export async function axe(p, where) {
  if (!(await p.evaluate(() => !!window.axe))) await p.addScriptTag({ path: axePath });
  const violations = await p.evaluate(async () => (await window.axe.run(document)).violations
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.slice(0, 4).map((n) => n.target.join(" ")).join(", ")}${v.nodes.length > 4 ? ` and ${v.nodes.length - 4} more` : ""}`));
  assert.deepEqual(violations, [], `axe-core on ${where}`);
}
