// make bench-web: how each lesson's page loads and runs in headless
// Chromium, against a blank page measured in the same run (absolute times
// depend on the machine and what else it does; the blank page's figures
// say how much). Not a test: it prints a table for BENCHMARKS.md and fails
// on nothing.
//
// Per lesson, opened from its own link with an empty cache:
//   - first visit: the bytes of everything fetched until the lesson is
//     interactive, as a browser that takes brotli gets them (the server
//     sends every file in brotli) and as one that takes gzip only (each
//     file asked for again); and the bytes on
//     the wire at the end, the page open at least 10 s (what fetching ahead
//     adds);
//   - ready: when the lesson became interactive; settled: when the
//     computation it opens with ended (no "computing" readout);
//   - a scripted 10 s interaction (a drag over the figure, steps, play and
//     pause, the same for every lesson and the blank page): animation-frame
//     gaps over 20 ms (a 60 Hz frame missed) and over 33.4 ms (two), the
//     longest task the browser reports, the total blocking time (the
//     tasks' time over 50 ms each, as Lighthouse sums it, but from
//     navigation to the end) and the longest call into Go after the
//     module's warm-up, and the milliseconds the page's thread spent
//     compiling WebAssembly during it (V8's wasm.CompileLazy, from the
//     browser's trace): what the rehearsal worker (rehearse.js) did not
//     compile beforehand;
//     and the module's memory at the end (it only grows).
// The interaction starts once the lesson's opening computation and its
// rehearsal have ended (a reader reads first); --no-rehearsal measures
// the page as a one-core device gets it, with no rehearsal.
//
//	node bench-web.mjs [--lessons a,b] [--seconds 10] [--json FILE] [--no-rehearsal]
//
// (make bench-web builds the site first and passes $BENCH_WEB.)
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { startServer, launch } from "./harness.mjs";

const { values: opt } = parseArgs({
  options: {
    lessons: { type: "string", default: "" },
    seconds: { type: "string", default: "10" },
    json: { type: "string", default: "" },
    "no-rehearsal": { type: "boolean", default: false },
  },
});
const seconds = Number(opt.seconds);
if (!(seconds > 0)) throw new Error(`--seconds ${opt.seconds}: give a positive number of seconds`);

// observe runs in every page before its scripts: long tasks from the
// start, and animation-frame gaps once window.benchGaps is an array.
function observe() {
  window.benchTasks = [];
  new PerformanceObserver((l) => { for (const e of l.getEntries()) window.benchTasks.push([e.startTime, e.duration]); })
    .observe({ type: "longtask", buffered: true });
  let last = 0;
  const f = (t) => { if (window.benchGaps) { if (last) window.benchGaps.push(t - last); last = t; } requestAnimationFrame(f); };
  requestAnimationFrame(f);
}

// interact is the scripted interaction: for the given time, a drag in a
// circle around the figure's centre, three steps, the end and the start,
// then a second of playback. Each event waits for the page to take it, so
// a page that blocks gets fewer in the same time: the same time for every
// page, not the same work.
async function interact(page, ms) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    // End, Home and space scroll the page where the lesson has no steps:
    // the figure is brought back into view and measured before each drag
    // (a drag at a stale place began outside the window, and the browser's
    // own drag-and-drop then took 70–90 ms a move on the rates explorer).
    await page.locator("#figure").scrollIntoViewIfNeeded();
    const box = await page.locator("#figure").boundingBox();
    const cx = box.x + box.width / 2, cy = box.y + box.height / 2;
    await page.mouse.move(cx + 40, cy);
    await page.mouse.down();
    for (let i = 1; i <= 24 && Date.now() < end; i++) {
      await page.mouse.move(cx + 40 * Math.cos(i * Math.PI / 12), cy + 40 * Math.sin(i * Math.PI / 12));
    }
    await page.mouse.up();
    await page.locator("#figure").focus();
    let playing = false;
    for (const k of ["ArrowRight", "ArrowRight", "ArrowRight", "End", "Home", " "]) {
      if (Date.now() >= end) break;
      await page.keyboard.press(k);
      playing = k === " ";
    }
    if (!playing) break;
    await page.waitForTimeout(Math.max(0, Math.min(1000, end - Date.now())));
    await page.keyboard.press(" ");
  }
}

// measure opens url in a fresh context (empty cache) and runs the
// interaction; blank pages have no lesson to wait for.
async function measure(browser, base, url, blank) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.addInitScript(observe);
  if (opt["no-rehearsal"]) await page.addInitScript(() => Object.defineProperty(navigator, "hardwareConcurrency", { get: () => 1 }));
  if (blank) {
    // A page of the site's origin (its 404), then emptied: the same
    // browser process model as a lesson's page.
    await page.goto(base + "bench-blank");
    await page.setContent('<!doctype html><title>blank</title><canvas id="figure" width="800" height="600" tabindex="0"></canvas>');
  } else {
    await page.goto(url);
    await page.waitForSelector("body[data-ready=true]", { timeout: 60000 });
  }
  const ready = blank ? 0 : await page.evaluate(() => window.uldpReadyAt);
  const early = await page.evaluate(() => [location.href, ...performance.getEntriesByType("resource").filter((e) => e.startTime <= window.uldpReadyAt).map((e) => e.name)]);
  if (!blank) await page.waitForFunction(() => !document.querySelector('#readouts dd[data-name="computing"]'), null, { timeout: 180000, polling: 100 });
  const settled = blank ? 0 : await page.evaluate(() => performance.now());
  if (!blank) await page.evaluate(() => window.uldpRehearsed);
  const cdp = await context.newCDPSession(page);
  const trace = [];
  cdp.on("Tracing.dataCollected", (d) => trace.push(...d.value));
  const traced = new Promise((resolve) => cdp.once("Tracing.tracingComplete", resolve));
  await cdp.send("Tracing.start", { traceConfig: { includedCategories: ["devtools.timeline", "v8.wasm"] }, transferMode: "ReportEvents" });
  await page.evaluate(() => { window.benchGaps = []; if (window.uldpStats) Object.assign(window.uldpStats, { maxWarmGoMs: 0, maxWarmGoWhat: "", maxPanelMs: 0 }); });
  const start = await page.evaluate(() => performance.now());
  await interact(page, seconds * 1000);
  await cdp.send("Tracing.end");
  await traced;
  // The page's thread is the one that runs its animation frames.
  const main = trace.find((e) => e.name === "FireAnimationFrame")?.tid;
  const compiling = trace.filter((e) => e.name === "wasm.CompileLazy" && e.tid === main).reduce((n, e) => n + (e.dur || 0), 0) / 1000;
  const r = await page.evaluate((start) => {
    const gaps = window.benchGaps, tasks = window.benchTasks;
    const wire = performance.getEntriesByType("navigation").concat(performance.getEntriesByType("resource")).reduce((n, e) => n + e.transferSize, 0);
    return {
      gaps20: gaps.filter((g) => g > 20).length, gaps33: gaps.filter((g) => g > 1000 / 30).length, frames: gaps.length,
      longestTask: Math.max(0, ...tasks.map(([, d]) => d)),
      longestTaskInteracting: Math.max(0, ...tasks.filter(([s]) => s >= start).map(([, d]) => d)),
      tbt: tasks.reduce((n, [, d]) => n + Math.max(0, d - 50), 0),
      memory: window.uldpStats?.memory?.buffer.byteLength || 0,
      go: window.uldpStats ? [window.uldpStats.maxWarmGoMs, window.uldpStats.maxWarmGoWhat] : [0, ""],
      panel: window.uldpStats?.maxPanelMs || 0,
      wire,
    };
  }, start);
  await context.close();
  return { ...r, ready, settled, early, compiling };
}

// encoded sums the sizes of urls as the server sends them with the given
// Accept-Encoding (its HEAD answers carry the length).
async function encoded(urls, encoding) {
  let n = 0;
  for (const u of urls) {
    const res = await fetch(u, { method: "HEAD", headers: { "Accept-Encoding": encoding } });
    const length = res.headers.get("content-length");
    if (!res.ok || length === null) throw new Error(`HEAD ${u}: ${res.status}, Content-Length ${length}`);
    n += Number(length);
  }
  return n;
}

const { proc, base } = await startServer();
const browser = await launch();
try {
  let menu = (await (await fetch(base + "lessons.json")).json()).lessons.map((l) => l.name);
  if (opt.lessons) {
    const unknown = opt.lessons.split(",").filter((l) => !menu.includes(l));
    if (unknown.length) throw new Error(`--lessons: no lesson ${unknown.join(", ")}; the lessons are ${menu.join(", ")}`);
    menu = opt.lessons.split(",");
  }
  const rows = [];
  const kib = (b) => (b / 1024).toFixed(0);
  const show = (name, m) => {
    const row = {
      page: name, ...m,
      line: `| ${name} | ${m.br === undefined ? "—" : `${kib(m.br)} / ${kib(m.gz)}`} | ${m.blank ? "—" : kib(m.wire)} | ${m.blank ? "—" : `${Math.round(m.ready)} / ${Math.round(m.settled)}`} | ${m.gaps20} / ${m.gaps33} of ${m.frames} | ${Math.round(m.longestTask)} (${Math.round(m.longestTaskInteracting)}) | ${Math.round(m.tbt)} | ${m.go[1] ? `${m.go[0].toFixed(1)} (${m.go[1]}) | ${m.panel.toFixed(1)}` : "— | —"} | ${m.blank ? "—" : m.compiling.toFixed(1)} | ${m.memory ? (m.memory / 2 ** 20).toFixed(0) : "—"} |`,
    };
    rows.push(row);
    console.log(row.line);
  };
  console.log(`${seconds} s of interaction per page; bytes in KiB; times in ms from navigation\n`);
  console.log("| page | first visit, brotli / gzip | wire at the end | ready / settled (ms) | frame gaps > 20 / > 33 ms | longest task (while interacting) | total blocking time | longest Go call after warm-up (ms) | longest panel update (ms) | compiling on the page's thread (ms) | memory (MiB) |");
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
  show("blank page", { ...(await measure(browser, base, "", true)), blank: true });
  for (const name of menu) {
    const m = await measure(browser, base, base + "#scene=" + name, false);
    const urls = m.early.map((u) => u.replace(/#.*$/, ""));
    show(name, { ...m, br: await encoded(urls, "br, gzip"), gz: await encoded(urls, "gzip") });
  }
  show("blank page, again", { ...(await measure(browser, base, "", true)), blank: true });
  if (opt.json) writeFileSync(opt.json, JSON.stringify(rows, null, 1));
} finally {
  await browser.close();
  proc.kill();
}
