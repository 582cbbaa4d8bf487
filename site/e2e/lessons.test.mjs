// Browser tests: the site served by `uldp serve`, driven in headless Chromium
// as a student would use it — keys, buttons, mouse drags, typed values,
// hand-edited links — with screenshots saved for a look and no console errors
// allowed. Run by `make test` (needs bin/uldp built with the lesson engines).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { serve, root, shots, base, browser, open, state, status, idle, readout, prose, lesson, noWorkers } from "./harness.mjs";

serve();

const AT = "#scene=abovethreshold";

// engines lists the engine modules the page requested, in order.
function engines(page) {
  const seen = [];
  page.on("request", (r) => { const m = r.url().match(/\/engine\/([a-z-]+)\.[0-9a-f]{12}\.wasm$/); if (m) seen.push(m[1]); });
  return seen;
}

test("the site opens on lesson 1 with every lesson in the menu", async () => {
  const { page, errors } = await open();
  assert.equal((await state(page)).get("scene"), "user-level");
  const lessons = await page.$$eval("#lessons a[data-scene]", (as) => as.map((a) => a.dataset.scene));
  assert.deepEqual(lessons, ["user-level", "calibration", "abovethreshold", "stability", "outlier-removal", "dp-sgd", "phased-erm", "audit", "robust-sgd", "outlier-iterates", "rates", "semi-sensitive"]);
  assert.equal(await page.getAttribute("#lessons a:last-child", "href"), "errata.html");
  await page.keyboard.press("3");
  await lesson(page, "abovethreshold");
  assert.equal((await state(page)).get("scene"), "abovethreshold");
  await prose(page, /AboveThreshold/);
  assert.deepEqual(errors, []);
  await page.close();
});

// settled waits for the page's fetch ahead and then for the browser to be
// idle twice, when a fetch chained to it would have started.
const settled = (page) => page.evaluate(async () => {
  await window.uldpPrefetched;
  for (let i = 0; i < 2; i++) await new Promise((r) => requestIdleCallback(r));
});

test("each lesson loads its own engine and fetches the next one's only; switching by menu and key keeps every lesson's state", async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  page.on("pageerror", (e) => errors.push(String(e)));
  const loaded = engines(page);
  await page.goto(base + "#scene=abovethreshold&eps=3");
  await lesson(page, "abovethreshold");
  // Until the lesson was interactive, only its own module was asked for.
  const early = await page.evaluate(() => performance.getEntriesByType("resource")
    .filter((e) => e.startTime < window.uldpReadyAt && /\/engine\//.test(e.name))
    .map((e) => e.name.match(/engine\/([a-z-]+)\./)[1]));
  assert.deepEqual(early, ["abovethreshold"], "modules requested before the first lesson was ready");
  assert.equal((await state(page)).get("eps"), "3");
  // Idle, the page fetches the next lesson's module, and no other.
  await settled(page);
  assert.deepEqual(loaded, ["abovethreshold", "stability"]);
  // Switch by the menu to it: fetched ahead, it starts quickly.
  const t0 = Date.now();
  await page.click('#lessons a[data-scene="stability"]');
  await lesson(page, "stability");
  const cachedSwitch = Date.now() - t0;
  assert.equal((await state(page)).get("scene"), "stability");
  assert.match(await page.textContent("#prose"), /TDLap/);
  assert.equal(await page.title(), "TDLap stability test — ULDP Lab");
  await settled(page);
  // By number key, back to lesson 3: its earlier settings are still there.
  await page.locator("#figure").focus();
  await page.keyboard.press("3");
  await lesson(page, "abovethreshold");
  assert.equal((await state(page)).get("eps"), "3", "lesson 3 lost its state across a switch");
  // The pointer resting on a lesson in the menu fetches its module.
  await page.hover('#lessons a[data-scene="dp-sgd"]');
  await page.waitForFunction(() => performance.getEntriesByType("resource").some((e) => /\/engine\/dp-sgd\./.test(e.name)), null, { timeout: 20000 });
  // Editing the address bar to another lesson loads that one.
  await page.evaluate(() => { location.hash = "#scene=calibration"; });
  await lesson(page, "calibration");
  await settled(page);
  // What was fetched: each lesson shown, the lesson after each, the one
  // hovered; each module crossed the network once, later uses came from
  // the cache.
  const transfers = await page.evaluate(() => {
    const n = {};
    for (const e of performance.getEntriesByType("resource")) {
      const m = e.name.match(/engine\/([a-z-]+)\./);
      if (m && e.transferSize > 0) n[m[1]] = (n[m[1]] || 0) + 1;
    }
    return n;
  });
  assert.deepEqual(Object.keys(transfers).sort(), ["abovethreshold", "calibration", "dp-sgd", "outlier-removal", "stability"]);
  assert.ok(Object.values(transfers).every((c) => c === 1), `a module was downloaded twice: ${JSON.stringify(transfers)}`);
  assert.deepEqual([...new Set(loaded)].sort(), Object.keys(transfers).sort());
  const menu = (await (await fetch(base + "lessons.json")).json()).lessons;
  assert.equal(await page.$$eval("#lessons a[data-scene]", (as) => as.length), menu.length);
  console.log(`# cached lesson switch (click to interactive): ${cachedSwitch} ms`);
  // The target (300 ms) is recorded in BENCHMARKS.md; a busy CI machine
  // gets slack here.
  assert.ok(cachedSwitch < 3000, `a cached switch took ${cachedSwitch} ms`);
  assert.deepEqual(errors, []);
  await page.close();
});

// A reader who asks to save data, or on a slow link, downloads a lesson
// only when opening it. That nothing comes is seen over a window (the
// focus rests three times as long as it needs to fetch, 0.5 s): a slow
// machine can only make this pass wrongly, never fail wrongly.
test("under Save-Data, nothing is fetched ahead: not the next lesson, not the one the focus rests on", async () => {
  for (const connection of [{ saveData: true, effectiveType: "4g" }, { saveData: false, effectiveType: "3g" }]) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const seen = engines(page);
    await page.addInitScript((c) => Object.defineProperty(navigator, "connection", { value: c }), connection);
    await page.goto(base + "#scene=calibration");
    await lesson(page, "calibration");
    await settled(page);
    await page.focus('#lessons a[data-scene="dp-sgd"]');
    await page.evaluate(() => new Promise((r) => setTimeout(() => requestIdleCallback(r), 1500)));
    assert.deepEqual(seen, ["calibration"], JSON.stringify(connection));
    // Asked for, a lesson loads as always.
    await page.click('#lessons a[data-scene="dp-sgd"]');
    await lesson(page, "dp-sgd");
    assert.deepEqual(seen, ["calibration", "dp-sgd"]);
    await page.close();
  }
});

test("engines are served precompressed, revalidated with 304 and cached for good", async () => {
  const menu = await (await fetch(base + "lessons.json")).json();
  const url = base + menu.lessons[0].module;
  const gz = await fetch(url, { headers: { "Accept-Encoding": "gzip" } });
  assert.equal(gz.headers.get("content-encoding"), "gzip");
  assert.equal(gz.headers.get("content-type"), "application/wasm");
  assert.match(gz.headers.get("cache-control"), /immutable/);
  const tag = gz.headers.get("etag");
  await gz.arrayBuffer();
  const again = await fetch(url, { headers: { "Accept-Encoding": "gzip", "If-None-Match": tag } });
  assert.equal(again.status, 304);
  const br = await fetch(url, { method: "HEAD", headers: { "Accept-Encoding": "br" } });
  assert.equal(br.headers.get("content-encoding"), "br");
  const none = await fetch(url, { method: "HEAD", headers: { "Accept-Encoding": "gzip;q=0" } });
  assert.equal(none.headers.get("content-encoding"), null, "gzip;q=0 must get no gzip");
  assert.equal(Number(none.headers.get("content-length")), menu.lessons[0].bytes);
  const page = await fetch(base, { headers: { "Accept-Encoding": "gzip" } });
  assert.equal(page.headers.get("cache-control"), "no-cache");
});

test("AboveThreshold: step forward and back with keys and buttons", async () => {
  const { page, errors } = await open(AT);
  assert.equal((await state(page)).get("scene"), "abovethreshold");
  // Eight queries: at most ten steps (the threshold, eight comparisons, a
  // halt), and where the run halts stays unsaid.
  assert.match(await status(page), /step 0 of at most 10:/);
  await page.locator("#figure").focus();
  await page.keyboard.press("ArrowRight");
  await page.keyboard.press("ArrowRight");
  assert.match(await status(page), /step 2 of at most 10: query 1/);
  await page.click("#ctl-back");
  assert.match(await status(page), /step 1 of at most 10: noisy threshold/);
  await page.click("#ctl-end");
  assert.match(await status(page), /step 7 of 7: halt after query 5/);
  assert.equal(await page.isDisabled("#ctl-step"), true);
  await page.screenshot({ path: shots + "abovethreshold-end.png" });
  await page.keyboard.press("r");
  assert.match(await status(page), /step 0 of at most 10:/);
  assert.deepEqual(errors, []);
  await page.close();
});

test("AboveThreshold: dragging a bar with the mouse changes that query only", async () => {
  const { page, errors } = await open(AT);
  await page.click("#ctl-end");
  const before = (await state(page)).get("queries").split(",");
  const box = await page.locator("#figure").boundingBox();
  const [x, y] = await page.evaluate(() => uldp.locate(2));
  await page.mouse.move(box.x + x, box.y + y);
  await page.mouse.down();
  for (let i = 1; i <= 10; i++) await page.mouse.move(box.x + x, box.y + y - 6 * i);
  await page.mouse.up();
  const afterQ = (await state(page)).get("queries").split(",");
  assert.notEqual(afterQ[1], before[1], "q2 did not move");
  assert.ok(Number(afterQ[1]) > Number(before[1]), "dragging up should raise q2");
  afterQ.forEach((q, i) => { if (i !== 1) assert.equal(q, before[i], `q${i + 1} moved`); });
  await page.screenshot({ path: shots + "abovethreshold-dragged.png" });
  const stats = await page.evaluate(() => window.uldpStats);
  console.log(`# drag: ${stats.updates} updates, scene update + display list max ${stats.maxUpdateMs.toFixed(2)} ms, draw max ${stats.maxDrawMs.toFixed(2)} ms`);
  assert.deepEqual(errors, []);
  await page.close();
});

test("AboveThreshold: a slider value updates readouts and the URL", async () => {
  const { page, errors } = await open(AT);
  await page.fill("#controls input[aria-label='ε value']", "4");
  await page.press("#controls input[aria-label='ε value']", "Enter");
  assert.equal(await readout(page, "threshold-scale").then((t) => t.split(/2\/ε/)[0].trim()), "0.5");
  assert.equal((await state(page)).get("eps"), "4");
  // The slider itself, by keyboard.
  await page.focus("#ctl-eps");
  await page.keyboard.press("ArrowRight");
  assert.notEqual((await state(page)).get("eps"), "4");
  assert.deepEqual(errors, []);
  await page.close();
});

test("bad input through the page shows a message and the page keeps working", async () => {
  const { page, errors } = await open(AT);
  // Typed, then left with Tab: the refusal shows in the banner and under
  // the box typed into, which describes the box to a screen reader.
  await page.fill("#controls input[aria-label='ε value']", "0");
  await page.press("#controls input[aria-label='ε value']", "Tab");
  await page.waitForSelector("#banner:not([hidden])");
  assert.match(await page.textContent("#banner"), /ε = 0 is outside/);
  assert.match(await page.textContent("#refusal-eps"), /ε = 0 is outside/);
  assert.ok(await page.isVisible("#refusal-eps"));
  assert.equal(await page.getAttribute("#controls input[aria-label='ε value']", "aria-describedby"), "refusal-eps");
  await page.fill("#ctl-queries", "1, two, 3");
  await page.press("#ctl-queries", "Enter");
  assert.match(await page.textContent("#banner"), /query 2: "two" is not a number/);
  assert.match(await page.textContent("#refusal-queries"), /query 2: "two" is not a number/);
  assert.ok(await page.isHidden("#refusal-eps"), "two refusals shown at once");
  // Any accepted change takes it away: here a step by key.
  await page.locator("#figure").focus();
  await page.keyboard.press("ArrowRight");
  assert.ok(await page.isHidden("#refusal-queries"), "a refusal outlived an accepted change");
  await page.keyboard.press("ArrowLeft");
  // Still works.
  await page.locator("#figure").focus();
  await page.keyboard.press("ArrowRight");
  assert.match(await status(page), /step 1 of/);
  assert.deepEqual(errors, []);
  await page.close();
});

test("a hand-edited link with NaN and huge values opens with a message", async () => {
  const { page, errors } = await open("#scene=abovethreshold&eps=NaN&queries=1e300,2&threshold=3&seed=99999999999999999999");
  await page.waitForSelector("#banner:not([hidden])");
  const msg = await page.textContent("#banner");
  assert.match(msg, /eps/);
  assert.match(msg, /queries/);
  assert.match(msg, /seed/);
  const s = await state(page);
  assert.equal(s.get("threshold"), "3", "the valid setting was not applied");
  assert.equal(s.get("eps"), "1", "the bad setting was applied");
  await page.keyboard.press("End");
  assert.match(await status(page), /step \d+ of \d+/);
  await page.screenshot({ path: shots + "bad-link.png" });
  assert.deepEqual(errors, []);
  await page.close();
});

// csvRows returns the dataset export as {user: [rows]}.
async function csvRows(page) {
  const csv = await page.evaluate(() => uldp.exportCSV().data);
  const out = {};
  for (const line of csv.trim().split("\n").slice(1)) {
    const [u, ...xs] = line.split(",");
    (out[u] ||= []).push(xs.join(","));
  }
  return out;
}

test("Why user-level?: dragging a user's mean moves all its items, and only them", async () => {
  const { page, errors } = await open("#scene=user-level&n=20&m=10&seed=1");
  const before = await csvRows(page);
  const meanBefore = await readout(page, "mean");
  const box = await page.locator("#figure").boundingBox();
  // User 20's mean: drawn last, no other user's mean covers it.
  const [x, y] = await page.evaluate(() => uldp.locate(1 + 20 * 10 + 19));
  await page.mouse.move(box.x + x, box.y + y);
  await page.mouse.down();
  for (let i = 1; i <= 10; i++) await page.mouse.move(box.x + x + 5 * i, box.y + y - 3 * i);
  await page.mouse.up();
  const after = await csvRows(page);
  for (const u of Object.keys(before)) {
    if (u === "20") assert.notDeepEqual(after[u], before[u], "user 20 did not move");
    else assert.deepEqual(after[u], before[u], `user ${u} moved`);
  }
  assert.notEqual(await readout(page, "mean"), meanBefore);
  await page.screenshot({ path: shots + "user-level-dragged.png" });
  assert.deepEqual(errors, []);
  await page.close();
});

test("Why user-level?: a touch drag moves a single item", async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, hasTouch: true });
  const page = await context.newPage();
  await page.goto(base + "#scene=user-level&n=20&m=10&seed=1");
  await page.waitForSelector("body[data-ready=true]", { timeout: 20000 });
  const before = await csvRows(page);
  const box = await page.locator("#figure").boundingBox();
  const [x, y] = await page.evaluate(() => uldp.locate(1 + 3 * 10 + 2)); // user 4, item 3
  const cdp = await context.newCDPSession(page);
  const touch = (type, dx) => cdp.send("Input.dispatchTouchEvent",
    { type, touchPoints: type === "touchEnd" ? [] : [{ x: box.x + x + dx, y: box.y + y }] });
  await touch("touchStart", 0);
  for (let i = 1; i <= 6; i++) await touch("touchMove", 8 * i);
  await touch("touchEnd", 48);
  const after = await csvRows(page);
  const changed = Object.keys(before).filter((u) => JSON.stringify(before[u]) !== JSON.stringify(after[u]));
  assert.deepEqual(changed, ["4"]);
  const rows = after["4"].filter((r, i) => r !== before["4"][i]);
  assert.equal(rows.length, 1, "exactly one item of user 4 moves");
  await context.close();
});

test("Why user-level?: the n slider changes the sensitivities", async () => {
  const { page, errors } = await open("#scene=user-level&n=20&m=10&radius=5");
  assert.match(await readout(page, "user-sens"), /^0\.5/);
  await page.fill("#controls input[aria-label='users n value']", "100");
  await page.press("#controls input[aria-label='users n value']", "Enter");
  assert.match(await readout(page, "user-sens"), /^0\.1/);
  assert.match(await readout(page, "item-sens"), /^0\.01/);
  assert.equal((await state(page)).get("n"), "100");
  assert.deepEqual(errors, []);
  await page.close();
});

test("Noise calibration: a mechanism outside its proof is flagged on the page", async () => {
  const { page, errors } = await open("#scene=calibration&mech=gaussian&eps=0.5&delta=1e-5&n=100&m=20&radius=1");
  assert.match(await page.textContent("#guarantee"), /certified/);
  assert.doesNotMatch(await page.textContent("#guarantee"), /NOT certified/);
  assert.match(await readout(page, "ratio"), /^20(?![\d.])/); // value, then its formula line
  await page.fill("#controls input[aria-label='ε value']", "10");
  await page.press("#controls input[aria-label='ε value']", "Enter");
  await page.fill("#controls input[aria-label='δ value']", "0.3");
  await page.press("#controls input[aria-label='δ value']", "Enter");
  assert.match(await page.textContent("#guarantee"), /NOT certified/);
  assert.match(await page.textContent("#readouts"), /use analytic-gaussian/);
  await page.selectOption("#ctl-mech", "analytic-gaussian");
  assert.doesNotMatch(await page.textContent("#guarantee"), /NOT certified/);
  await page.screenshot({ path: shots + "calibration.png" });
  assert.deepEqual(errors, []);
  await page.close();
});

// dragFarUserIn drags the stability lesson's user 14 (at 10) onto user 1,
// in the crowd, with the mouse.
async function dragFarUserIn(page) {
  const box = await page.locator("#figure").boundingBox();
  const [x, y] = await page.evaluate(() => uldp.locate(14));
  const [x0] = await page.evaluate(() => uldp.locate(1));
  await page.mouse.move(box.x + x, box.y + y);
  await page.mouse.down();
  for (let i = 1; i <= 12; i++) await page.mouse.move(box.x + x + (x0 - x) * i / 12, box.y + y);
  await page.mouse.up();
}

test("TDLap stability test: dragging the far user in removes the need to delete anyone", async () => {
  const { page, errors } = await open("#scene=stability");
  assert.match(await readout(page, "rstar"), /^1 \(remove user 14\)/);
  await page.click("#ctl-end");
  await dragFarUserIn(page);
  assert.match(await readout(page, "rstar"), /^0 /);
  assert.match(await readout(page, "p-bottom"), /^0(?![.\d])/);
  // The neighbour lens and its verdict.
  await page.check("#ctl-lens");
  assert.match(await readout(page, "lens-delta"), /within/);
  await page.screenshot({ path: shots + "stability-lens.png" });
  assert.deepEqual(errors, []);
  await page.close();
});

test("Outlier removal: step through the gate and the ramp, drag a far user into the crowd", async () => {
  const { page, errors } = await open("#scene=outlier-removal");
  await page.click("#ctl-end");
  assert.match(await readout(page, "kept"), /^28 of 30/);
  const box = await page.locator("#figure").boundingBox();
  const [x, y] = await page.evaluate(() => uldp.locate(29));
  const [x0, y0] = await page.evaluate(() => uldp.locate(1));
  await page.mouse.move(box.x + x, box.y + y);
  await page.mouse.down();
  for (let i = 1; i <= 10; i++) await page.mouse.move(box.x + x + (x0 - x) * i / 10, box.y + y + (y0 - y) * i / 10);
  await page.mouse.up();
  assert.match(await readout(page, "kept"), /^29 of 30/);
  // A new preset keeps the stepper where it was: at the end, the gate halts.
  await page.selectOption("#ctl-preset", "two-clusters");
  assert.match(await readout(page, "outcome"), /halt/);
  await prose(page, /average only the crowd/);
  await page.screenshot({ path: shots + "outlier-removal.png" });
  assert.deepEqual(errors, []);
  await page.close();
});

test("User-level DP-SGD: steps with the inset, the baseline beside it, halting when τ is too small", async () => {
  const { page, errors } = await open("#scene=dp-sgd");
  await page.locator("#figure").focus();
  for (let i = 0; i < 3; i++) await page.keyboard.press("ArrowRight");
  assert.match(await status(page), /^step 3 of \d+: θ = Π_Θ/); // the step number once
  const t0 = Date.now();
  await page.click("#ctl-end");
  assert.match(await readout(page, "excess"), /^[\d.e−-]+ \(the domain allows/);
  assert.match(await readout(page, "baseline"), /σ = /);
  await page.fill(`#controls input[aria-label="τ ÷ the theorem's value"]`, "0.001");
  await page.keyboard.press("Enter");
  assert.match(await readout(page, "halted"), /the gate failed at step \d+/);
  const ms = Date.now() - t0;
  await prose(page, /one private mean per step/);
  await page.screenshot({ path: shots + "dp-sgd.png" });
  assert.deepEqual(errors, []);
  console.log(`# dp-sgd: end + a τ change in ${ms} ms`);
  await page.close();
});

// calls reads what the page's calls into Go took since resetCalls (or
// since it opened): the ticks, the longest call (after the module's
// warm-up, unless warm is false) and the warm-up's calls.
const calls = (page, warm = true) => page.evaluate((warm) => ({
  ticks: uldpStats.ticks, calls: uldpStats.goCalls, over_frame: uldpStats.goOverFrame,
  max_go_call_ms: +(warm ? uldpStats.maxWarmGoMs : uldpStats.maxGoMs).toFixed(1), max_go_call: warm ? uldpStats.maxWarmGoWhat : uldpStats.maxGoWhat,
  warm_up_ms: Object.fromEntries(Object.entries(uldpStats.firstGoMs).map(([k, v]) => [k, Math.round(v)])),
}), warm);
const resetCalls = (page) => page.evaluate(() => Object.assign(window.uldpStats, { maxGoMs: 0, maxGoWhat: "", maxWarmGoMs: 0, maxWarmGoWhat: "", ticks: 0, goCalls: 0, goOverFrame: 0 }));

// warmUp checks a module's first calls (kind → ms) against the bound of a
// computation left in one call (see the next test).
function warmUp(firstMs) {
  for (const [what, ms] of Object.entries(firstMs)) assert.ok(ms < 1000, `opening took a ${ms} ms ${what}: is a computation done in one call?`);
}

// follow opens hash as a link edited in the address bar (the lesson's
// module, warm, takes its settings) and waits until the lesson has them.
async function follow(page, hash) {
  await page.evaluate((h) => { location.hash = h; }, hash);
  await page.waitForFunction((h) => {
    const got = new URLSearchParams(uldp.state());
    return [...new URLSearchParams(h.slice(1))].every(([k, v]) => got.get(k) === v);
  }, hash, { timeout: 20000 });
}

// At the sliders' maxima a run takes seconds: the page hands it to its
// compute worker, which computes it on another core and sends the whole
// run, and the page reads it a few milliseconds a frame (before: computed
// on the page a slice of 30 ms per frame; before that, 12 s frozen on
// load and 4.7 s per change). The bound on a call is a frame's drawing or
// a slice with room for a loaded machine; the figures go to BENCHMARKS.md.
// It holds once the module is warm: a module's first calls (the first
// frame, the first panel, …) also compile the code they run, as the
// browser compiles a module lazily (20–140 ms for a first frame, any
// lesson, 1–16 ms with compilation made eager), so they scale with the
// machine's load, not with the lesson's work; warmUp holds them to 1 s.
// Hence the lesson opens on its defaults and then follows the link.
test("User-level DP-SGD at the sliders' maxima computes in a worker, between frames", async () => {
  const { page, errors } = await open("#scene=dp-sgd");
  await idle(page);
  await resetCalls(page);
  const t0 = Date.now();
  await follow(page, "#scene=dp-sgd&n=1000&m=50&steps=500&tau=10");
  assert.match(await page.textContent('#readouts dd[data-name="computing"]'), /%/);
  await idle(page);
  const loadMs = Date.now() - t0;
  const load = await calls(page);
  assert.match(await readout(page, "excess"), /the domain allows/);
  await resetCalls(page);
  const t1 = Date.now();
  await page.fill(`#controls input[aria-label="τ ÷ the theorem's value"]`, "5");
  await page.keyboard.press("Enter");
  await idle(page);
  const change = await calls(page);
  const handed = await page.evaluate(() => ({ offloads: uldpOffloads, adopted: uldpAdopted }));
  console.log(`# dp-sgd at n = 1000, m = 50, T = 500: the link's run done in ${loadMs} ms, ${JSON.stringify(load)}; a τ change done in ${Date.now() - t1} ms, ${JSON.stringify(change)}; ${JSON.stringify(handed)}`);
  assert.ok(handed.offloads >= 2 && handed.adopted >= 2, `runs handed to the worker and adopted: ${JSON.stringify(handed)}`);
  for (const s of [load, change]) assert.ok(s.max_go_call_ms < 100, `a call into Go (${s.max_go_call}) took ${s.max_go_call_ms} ms`);
  warmUp(change.warm_up_ms);
  assert.match((await state(page)).toString(), /tau=5/);
  // A change while the worker computes a large run: the worker is told to
  // leave it at once rather than compute it for nothing, before the new
  // run (ten steps) has computed here long enough to be judged (it may be
  // handed out then, or finished here).
  await page.fill(`#controls input[aria-label="τ ÷ the theorem's value"]`, "4");
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => uldpOffloads >= 3, null, { timeout: 20000 });
  await page.fill(`#controls input[aria-label="steps T value"]`, "10");
  await page.keyboard.press("Enter");
  await idle(page);
  const told = await page.evaluate(() => [uldpOffloads, uldpCancels]);
  assert.ok([3, 4].includes(told[0]) && told[1] === 1, `handed out and told to leave: ${told}`);
  assert.match((await state(page)).toString(), /steps=10/);
  assert.deepEqual(errors, []);
  await page.close();

  // A smaller run (a quarter of a second on the page) is handed out too,
  // and reads as the same run computed on the page without workers.
  const small = "#scene=dp-sgd&steps=200&eps=4";
  const there = await open(small);
  await idle(there.page);
  assert.ok(await there.page.evaluate(() => uldpAdopted > 0), "the smaller run was not computed in the worker");
  const here = await open(small, noWorkers);
  await idle(here.page);
  assert.equal(await here.page.textContent("#readouts"), await there.page.textContent("#readouts"), "the run computed on the page reads differently");
  assert.deepEqual([...there.errors, ...here.errors], []);
  await there.page.close();
  await here.page.close();
});

// The issue's target: the lesson animates 500 steps without dropping
// frames. Headless Chromium rasterises in software here, and the Go heap
// (the recorded run: 500 steps × 300 users) is marked by a single-threaded
// GC, so a few frames run late; the figures go to BENCHMARKS.md. How many
// frames run late depends on what else the machine does (2–13 % idle, 34–47 %
// with two other busy processes on two cores — as many as the page used to
// run late idle), so the check is on what the page itself does, which load
// does not change: its own work per frame fits a frame (16.7 ms; 2.3–2.8 ms
// idle — 18–20 ms while the dots' sheet was the figure's size and copied
// three times a frame), and what once made 30–36 % of frames late idle —
// the guarantee panel rebuilt and the address bar rewritten every frame —
// stays gone: the panel untouched through the play, the address written at
// most every 100 ms.
test("User-level DP-SGD: 500 steps play at 50 steps a second", async () => {
  const { page, errors } = await open("#scene=dp-sgd&steps=500");
  // The 500-step run is computed between frames: play it once it is there
  // (Space during the computation played the run shown before it).
  await idle(page);
  const warnings = [];
  page.on("console", (m) => { if (m.type() === "warning") warnings.push(m.text()); });
  await page.fill("input[aria-label='speed value']", "50");
  await page.press("input[aria-label='speed value']", "Enter");
  await page.evaluate(() => {
    Object.assign(window.uldpStats, { updates: 0, updateMs: 0, maxUpdateMs: 0, draws: 0, drawMs: 0, maxDrawMs: 0, maxGoMs: 0 });
    window.gaps = [];
    window.urlWrites = 0;
    window.guaranteeRebuilt = 0;
    const replace = history.replaceState.bind(history);
    history.replaceState = (...a) => { window.urlWrites++; return replace(...a); };
    new MutationObserver((ms) => { window.guaranteeRebuilt += ms.length; })
      .observe(document.getElementById("guarantee"), { childList: true, subtree: true, characterData: true });
    let last = 0;
    const f = (t) => { if (last) window.gaps.push(t - last); last = t; if (!window.stopGaps) requestAnimationFrame(f); };
    requestAnimationFrame(f);
  });
  await page.locator("#figure").focus();
  const t0 = Date.now();
  await page.keyboard.press(" ");
  // Step 500 shows for 20 ms, about a frame, and the wait polls once a
  // frame: it may see the last step (501, the release) first.
  await page.waitForFunction(() => +(/^step (\d+) of/.exec(document.getElementById("status").textContent) || [])[1] >= 500, null, { timeout: 30000 });
  const ms = Date.now() - t0;
  const f = await page.evaluate(() => {
    window.stopGaps = true;
    const g = window.gaps, s = window.uldpStats;
    return { frames: s.updates, gaps: g.length, late: g.filter((x) => x > 20).length, late_16_7: g.filter((x) => x > 16.7 * 1.05).length,
      max_gap_ms: Math.round(Math.max(...g)), max_go_call_ms: +s.maxGoMs.toFixed(1),
      update_mean_ms: +(s.updateMs / s.updates).toFixed(2), draw_mean_ms: +(s.drawMs / s.draws).toFixed(2),
      url_writes: window.urlWrites, guarantee_mutations: window.guaranteeRebuilt };
  });
  console.log(`# dp-sgd play: 500 steps in ${ms} ms, ${JSON.stringify(f)}`);
  assert.ok(f.update_mean_ms + f.draw_mean_ms <= 1000 / 60,
    `the page's own work takes ${(f.update_mean_ms + f.draw_mean_ms).toFixed(1)} ms a frame: more than a frame's 16.7 ms`);
  assert.equal(f.guarantee_mutations, 0, "the guarantee panel was rebuilt during the play");
  assert.ok(f.url_writes <= ms / 100 + 2, `${f.url_writes} address writes in ${ms} ms: more than one per 100 ms`);
  // The address bar follows the animation at most ten times a second, so
  // the browser never throttles history changes.
  assert.deepEqual(warnings.filter((w) => /history|Throttling/i.test(w)), []);
  assert.match((await state(page)).toString(), /steps=500/);
  assert.deepEqual(errors, []);
  await page.close();
});

// Paper B's strongly convex localisation, in lesson 6 and in the audit
// lab: phases on fresh groups of users, stepped through with the strip of
// users by phase, phase 1's 18 users halting its gate; the lab samples
// whole runs with each phase's halting law exact and catches no-gate.
test("User-level DP-SGD, localised: phases on fresh users; the audit lab samples whole runs and catches no-gate", async () => {
  const { page, errors } = await open("#scene=dp-sgd&algo=localised");
  assert.match(await readout(page, "phases"), /^users 18, 37, 75, 150 of n = 300 \(the last 20 unused\)/);
  assert.match(await page.textContent("#guarantee"), /4 DP-SGD phases/);
  await page.locator("#figure").focus();
  await page.keyboard.press("ArrowRight");
  assert.match(await readout(page, "phase"), /^1 of 4: 18 fresh users \(1 to 18 in file order\)/);
  await page.waitForFunction(() => /in phases on fresh groups/.test(document.getElementById("figure-desc").textContent));
  await page.keyboard.press("End");
  assert.match(await readout(page, "halted"), /phase 1 at step \d+/);
  assert.match(await status(page), /^step (\d+) of \1: phase 4 on 150 users/);
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.screenshot({ path: shots + "dp-sgd-localised.png" });

  await page.goto(base + "#scene=audit&mech=dp-sgd-sc&pair=two-crowds");
  await page.waitForFunction(() => document.body.dataset.lesson === "audit" && document.querySelector('#readouts dd[data-name="halt"]'));
  assert.match(await readout(page, "halt"), /^phase by phase, 1, 1, 1, 1 on A and 1, 1, 1, 1 on B \(exact, independent\)/);
  await page.selectOption("#ctl-mutant", "no-gate");
  assert.match(await readout(page, "halt"), /^phase by phase, 0, 0, 0, 0 on A/);
  await page.locator("#figure").focus();
  await page.keyboard.press("m");
  await page.waitForFunction(() => /violation/.test(document.querySelector('#readouts dd[data-name="mc"]')?.textContent), null, { timeout: 90000 });
  assert.deepEqual(errors, []);
  await page.close();
});

test("Robust-statistics SGD: the test passes, a dragged neighbour's gap stays within 6ηr, the coupled loss stretches it, a bad batch halts", async () => {
  const { page, errors } = await open("#scene=robust-sgd&order=given");
  await page.setViewportSize({ width: 1440, height: 900 });
  await prose(page, /clipped around the median/);
  await page.screenshot({ path: shots + "robust-sgd-open.png" });
  await page.locator("#figure").focus();
  await page.keyboard.press("End");
  assert.match(await readout(page, "outcome"), /^every step passed/);
  assert.match(await readout(page, "output"), /released|‖x̂ − z̄‖∞/);
  // The neighbour: back at step 1, user 150 (in its batch: users in file
  // order) moves in the copy only.
  await page.keyboard.press("n");
  assert.match(await readout(page, "gap"), /^no difference yet/);
  await page.keyboard.press("r");
  for (let i = 0; i < 3; i++) await page.keyboard.press("ArrowRight");
  assert.match(await status(page), /^step 3 of \d+: step 1:/);
  const box = await page.locator("#figure").boundingBox();
  const [x, y] = await page.evaluate(() => uldp.locate(150));
  await page.mouse.move(box.x + x, box.y + y);
  await page.mouse.down();
  for (let i = 1; i <= 8; i++) await page.mouse.move(box.x + x + 20 * i, box.y + y - 10 * i);
  await page.mouse.up();
  await page.keyboard.press("End");
  assert.match(await readout(page, "gap"), /^jumps to [\d.e−-]+ at step 1 \(bound 6ηr = 0\.06\).*it never grew$/);
  await page.screenshot({ path: shots + "robust-sgd.png" });
  // The coupled loss (teaching mode) stretches the gap after the jump.
  await page.selectOption("#ctl-preset", "coupled");
  await page.keyboard.press("End");
  assert.match(await readout(page, "gap"), /it grew at step 2$/);
  // A bad batch halts the test where it is, and the run answers its start.
  await page.selectOption("#ctl-preset", "bad-batch");
  assert.match(await readout(page, "outcome"), /^⊥ at step 3: the phase answers its start/);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: shots + "robust-sgd-phone.png" });
  assert.deepEqual(errors, []);
  await page.close();
});

test("Outlier-iterate removal: phase 1 drops the far group, a dragged user moves its group's iterate, τ too small halts", async () => {
  const { page, errors } = await open("#scene=outlier-iterates");
  await page.setViewportSize({ width: 1440, height: 900 });
  await prose(page, /strays are dropped/);
  await page.screenshot({ path: shots + "outlier-iterates-open.png" });
  await page.locator("#figure").focus();
  // Phase 1: its step, 20 groups, the gate, the coins, the release.
  for (let i = 0; i < 24; i++) await page.keyboard.press("ArrowRight");
  assert.match(await readout(page, "kept"), /^19 of 20; dropped: group 1(?![\d,])/);
  const score = await readout(page, "score");
  assert.match(score, /^18\.1 of C = 20/);
  await page.screenshot({ path: shots + "outlier-iterates.png" });
  // Drag the phase-1 user on top at user 11's first item far from the
  // crowd: its group's iterate moves, and pairs within τ are lost (but not
  // so many that the gate fails). The move is a share of the figure's
  // width (19 % across, 15 % down: 200 and 160 px of the 1,056 px figure it
  // was first written for), so a layout that narrows the figure keeps it.
  const box = await page.locator("#figure").boundingBox();
  const [x, y] = await page.evaluate(() => uldp.locate(31));
  await page.mouse.move(box.x + x, box.y + y);
  await page.mouse.down();
  for (let i = 1; i <= 8; i++) await page.mouse.move(box.x + x - 0.024 * box.width * i, box.y + y + 0.019 * box.width * i);
  await page.mouse.up();
  assert.notEqual(await readout(page, "score"), score);
  await page.keyboard.press("End");
  assert.match(await readout(page, "output"), /from the minimiser x\*/);
  assert.match(await readout(page, "gradients"), /of n·m = 3000/);
  await page.screenshot({ path: shots + "outlier-iterates-end.png" });
  // The accelerated variant on the same users: it opens in teaching mode;
  // the far users fill the first minibatch and halt phase 1 at step 1.
  await page.selectOption("#ctl-algo", "accelerated");
  assert.equal(await page.inputValue("#ctl-mode"), "teaching");
  await page.keyboard.press("r");
  for (let i = 0; i < 5; i++) await page.keyboard.press("ArrowRight");
  assert.match(await readout(page, "score"), /^2\d\.\d+ of K = 40; noisy [\d.]+ < Δ̂ = [\d.]+: the phase halts and returns 0/);
  await page.selectOption("#ctl-preset", "crowd");
  await page.keyboard.press("End");
  assert.match(await readout(page, "gradients"), /outlier-iterate removal takes \d+ on the same users, one pass/);
  await page.screenshot({ path: shots + "outlier-iterates-accelerated.png" });
  await page.selectOption("#ctl-algo", "oir");
  // τ below the iterates' spread: the gate halts in phase 1.
  await page.selectOption("#ctl-preset", "tau-too-small");
  await page.keyboard.press("End");
  assert.match(await readout(page, "gate"), /< 4C\/5: halt, output 0/);
  assert.deepEqual(errors, []);
  await page.close();
  // On a phone, from a link: the first frame and the last step.
  const phone = await open("#scene=outlier-iterates");
  await phone.page.setViewportSize({ width: 390, height: 844 });
  await phone.page.screenshot({ path: shots + "outlier-iterates-phone-open.png" });
  await phone.page.locator("#figure").focus();
  await phone.page.keyboard.press("End");
  assert.match(await readout(phone.page, "output"), /from the minimiser/);
  await phone.page.evaluate(() => window.scrollTo(0, 0));
  await phone.page.screenshot({ path: shots + "outlier-iterates-phone.png" });
  assert.deepEqual(phone.errors, []);
  await phone.page.close();
});

// The issue's target: A-LOC on 10⁵ users of 10 items computes between
// frames with a progress bar, no call into Go outlasting a frame. Go
// computes 10 ms at a time; the collector's pauses push a few calls past
// 16.7 ms (3 to 5 of about 170 in the three changes below on an idle
// machine), and a busy CI machine may preempt the tab mid-call, so the
// check allows 5 % of the calls over a frame and none over 100 ms. The
// lesson opens on 1,000 users and then follows the link, whose three
// settings are applied in one call, on a warm module (see the DP-SGD
// test): its calls are held to 200 ms (the link's calls are the first to
// run the code of 10⁵ users' stages: 85 ms idle).
test("Robust-statistics SGD: A-LOC on 100,000 users computes between frames", async () => {
  const { page, errors } = await open("#scene=robust-sgd&algo=a-loc&n=1000&m=10");
  await idle(page);
  await resetCalls(page);
  await follow(page, "#scene=robust-sgd&algo=a-loc&n=100000&m=10");
  await idle(page);
  const load = await calls(page);
  assert.match(await readout(page, "phase"), /of \d+: 50000 users/);
  const changes = [];
  for (const [what, act] of [
    ["statistic", () => page.selectOption("#ctl-stat", "trimmed")],
    ["neighbour", () => page.click("#ctl-neighbour")],
    ["n = 50000 (new users)", async () => { await page.fill("input[aria-label='users n value']", "50000"); await page.press("input[aria-label='users n value']", "Enter"); }],
  ]) {
    await resetCalls(page);
    const t0 = Date.now();
    await act();
    await idle(page);
    changes.push({ what, ms: Date.now() - t0, ...(await calls(page)) });
  }
  console.log(`# robust-sgd A-LOC at n = 100000, m = 10: ${JSON.stringify(load)} following the link; changes ${JSON.stringify(changes)}`);
  for (const c of changes) assert.ok(c.max_go_call_ms < 100, `${c.what}: a call into Go (${c.max_go_call}) took ${c.max_go_call_ms} ms`);
  assert.ok(load.max_go_call_ms < 200, `following the link: a call into Go (${load.max_go_call}) took ${load.max_go_call_ms} ms`);
  const made = changes.reduce((a, c) => a + c.calls, 0), over = changes.reduce((a, c) => a + c.over_frame, 0);
  assert.ok(over <= 0.05 * made, `${over} of ${made} calls outlasted a frame`);
  warmUp(changes.at(-1).warm_up_ms);
  assert.deepEqual(errors, []);
  await page.close();
});

test("Phased ERM: opens on the localisation, the paper's constants one click away, the ledger fills", async () => {
  const { page, errors } = await open("#scene=phased-erm");
  assert.match(await page.textContent("#guarantee"), /No privacy guarantee/);
  await page.locator("#figure").focus();
  for (let i = 0; i < 2; i++) await page.keyboard.press("ArrowRight");
  assert.match(await status(page), /phase 1: release .*\(σ = 0\)/);
  await page.screenshot({ path: shots + "phased-erm.png" });
  await page.click("#ctl-paper-constants");
  assert.match(await page.textContent("#guarantee"), /certified/);
  assert.equal((await state(page)).get("mode"), "paper");
  await page.click("#ctl-end");
  assert.match(await readout(page, "ledger"), /^ε = 1, δ = 1e-05/);
  assert.match(await readout(page, "noise-warning"), /exceeds 𝒦/);
  await page.keyboard.press("v");
  assert.match(await page.textContent("#guarantee"), /No privacy guarantee/);
  assert.deepEqual(errors, []);
  await page.close();
});

test("Audit lab, phased part: choosing outlier-iterate removal loads the lab's phased part, which catches keep-all exactly, and back", async () => {
  const { page, errors } = await open("#scene=audit");
  const engines = [];
  page.on("request", (r) => { if (/engine\/audit-phased\./.test(r.url())) engines.push(r.url()); });
  await page.selectOption("#ctl-mech", "outlier-iterate-removal");
  await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get("mech") === "outlier-iterate-removal" && document.querySelector("#readouts dd[data-name='gate']"));
  assert.match(await readout(page, "gate"), /against its budget/);
  assert.match(await readout(page, "exact"), /within/);
  await page.selectOption("#ctl-mutant", "keep-all");
  assert.match(await readout(page, "exact"), /VIOLATION/);
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.screenshot({ path: shots + "audit-outlier-iterates.png" });
  // Back to a mechanism of the lab's first module.
  await page.selectOption("#ctl-mech", "orme");
  await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get("mech") === "orme" && document.querySelector("#readouts dd[data-name='exact']") && !document.querySelector("#readouts dd[data-name='gate']"));
  // A link opens the part directly, with its pair and variant.
  await page.evaluate(() => { location.hash = "#scene=audit&mech=outlier-iterate-removal&pair=gate-edge&mutant=no-score-noise"; });
  await page.waitForFunction(() => document.querySelector("#ctl-pair")?.value === "gate-edge");
  assert.match(await readout(page, "exact"), /VIOLATION/);
  assert.ok(engines.length >= 1, "the phased part's module was never requested");
  assert.deepEqual(errors, []);
  await page.close();
});

test("Audit lab, PVMW part: PVMW's gate without threshold noise is caught by sampling, and back", async () => {
  const { page, errors } = await open("#scene=audit");
  const engines = [];
  page.on("request", (r) => { if (/engine\/audit-semi\./.test(r.url())) engines.push(r.url()); });
  await page.selectOption("#ctl-mech", "pvmw");
  await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get("mech") === "pvmw" && document.querySelector("#readouts dd[data-name='claim']"));
  assert.match(await readout(page, "claim"), /^\(ε = 4, δ = 0\)/);
  await page.selectOption("#ctl-mutant", "no-threshold-noise");
  const started = Date.now();
  await page.keyboard.press("m");
  await page.waitForFunction(() => /violation/.test(document.querySelector('#readouts dd[data-name="mc"]')?.textContent), null, { timeout: 60000 });
  console.log(`# PVMW's gate audit, 2 × 5·10⁴ runs in the browser: ${Date.now() - started} ms`);
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.screenshot({ path: shots + "audit-pvmw.png" });
  await page.selectOption("#ctl-mech", "orme");
  await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get("mech") === "orme" && document.querySelector("#readouts dd[data-name='exact']"));
  assert.ok(engines.length >= 1, "the semi part's module was never requested");
  assert.deepEqual(errors, []);
  await page.close();
});

test("Audit lab: a mechanism chosen while another part's module loads wins over that module's arrival", async () => {
  const { page, errors } = await open("#scene=audit");
  // The PVMW part's module is held back until the reader has moved on.
  let release;
  const held = new Promise((r) => { release = r; });
  await page.route(/engine\/audit-semi\./, async (route) => { await held; await route.continue(); });
  await page.selectOption("#ctl-mech", "pvmw");
  await page.waitForSelector("#loading:not([hidden])");
  assert.match(await page.textContent("#loading p"), /^Loading the part of “Audit lab” that shows pvmw…$/);
  await page.selectOption("#ctl-mech", "orme");
  await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get("mech") === "orme" && document.querySelector("#loading").hidden);
  release();
  await page.waitForFunction(() => [...compiledDone].some((m) => /audit-semi\./.test(m)), null, { timeout: 30000 });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  assert.equal(new URLSearchParams((await page.evaluate(() => location.hash)).slice(1)).get("mech"), "orme");
  assert.equal(await page.inputValue("#ctl-mech"), "orme");
  assert.match(await readout(page, "exact"), /within|VIOLATION/);
  assert.deepEqual(errors, []);
  await page.close();
});

test("Audit lab: a broken variant is caught exactly and by sampling; drags keep the pair neighbours", async () => {
  const { page, errors } = await open("#scene=audit");
  assert.match(await readout(page, "exact"), /within/);
  // The guided steps set the lab up in one click.
  await prose(page, /step by step/);
  await page.click("#prose a:has-text('Pair three-vs-four-outliers')");
  await page.waitForFunction(() => document.querySelector("#ctl-pair").value === "three-vs-four-outliers");
  assert.equal(await page.inputValue("#ctl-mutant"), "r1-fixed");
  assert.match(await readout(page, "exact"), /VIOLATION/);
  await page.click("#prose a:has-text('DelOutputPert, pair far-outlier, variant none')");
  await page.waitForFunction(() => document.querySelector("#ctl-mutant").value === "none");
  assert.match(await readout(page, "exact"), /within/);
  await page.selectOption("#ctl-mutant", "no-stability");
  assert.match(await readout(page, "exact"), /VIOLATION/);
  assert.match(await page.textContent("#guarantee"), /NOT certified[\s\S]*no-stability[\s\S]*does NOT hold/);
  // The Monte Carlo audit samples between frames with a progress readout,
  // then agrees with the exact one.
  await page.locator("#figure").focus();
  await page.evaluate(() => Object.assign(window.uldpStats, { ticks: 0, maxTickMs: 0 }));
  const mcStart = Date.now();
  await page.keyboard.press("m");
  await page.waitForFunction(() => /violation/.test(document.querySelector('#readouts dd[data-name="mc"]')?.textContent), null, { timeout: 60000 });
  const mcTicks = await page.evaluate(() => ({ ticks: window.uldpStats.ticks, max_tick_ms: +window.uldpStats.maxTickMs.toFixed(1) }));
  console.log(`# DelOutputPert Monte Carlo audit, 2 × 10⁵ runs in the browser: ${Date.now() - mcStart} ms, ${JSON.stringify(mcTicks)}`);
  await page.screenshot({ path: shots + "audit-caught.png" });
  // Drag B's user 3 (id 1003) to the right: the pair stays neighbours and
  // the real mechanism keeps its promise on it.
  await page.selectOption("#ctl-mutant", "none");
  const box = await page.locator("#figure").boundingBox();
  const [x, y] = await page.evaluate(() => uldp.locate(1003));
  await page.mouse.move(box.x + x, box.y + y);
  await page.mouse.down();
  for (let i = 1; i <= 8; i++) await page.mouse.move(box.x + x + 15 * i, box.y + y);
  await page.mouse.up();
  assert.match(await readout(page, "exact"), /within/);
  await prose(page, /A pass is not a proof/);
  // The textbook Gaussian σ used at ε = 3 passes; at ε = 10 it is caught.
  await page.selectOption("#ctl-mech", "gaussian");
  await page.selectOption("#ctl-mutant", "classical-sigma");
  assert.match(await readout(page, "exact"), /within/);
  await page.fill("#controls input[aria-label='claimed ε value']", "10");
  await page.keyboard.press("Enter");
  assert.match(await readout(page, "exact"), /VIOLATION/);
  // Half the score noise hides in ORME's whole budget at T = 1; the gate's
  // own share over 8 queries catches it.
  await page.selectOption("#ctl-mech", "orme");
  await page.selectOption("#ctl-mutant", "half-score-noise");
  assert.match(await readout(page, "exact"), /within/);
  await page.selectOption("#ctl-mech", "orme-gate");
  await page.selectOption("#ctl-mutant", "half-score-noise");
  assert.match(await readout(page, "exact"), /0\.0771.*VIOLATION/);
  await prose(page, /pays for its halting query twice/);
  // DP-SGD has no closed form: the halting probability is exact, the rest
  // is sampled from whole runs, and no-gate is caught on two crowds. It is
  // in the lab's SGD part, a module of its own, which opens in its place.
  const sgdModules = [];
  page.on("request", (r) => { if (/engine\/audit-sgd\./.test(r.url())) sgdModules.push(r.url()); });
  await page.selectOption("#ctl-mech", "dp-sgd");
  await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get("mech") === "dp-sgd" && document.querySelector("#readouts dd[data-name='halt']"));
  assert.ok(sgdModules.length >= 1, "the SGD part's module was never requested");
  // Each select's help describes what is chosen, not the other choices.
  const help = (id) => page.locator(`#${id}`).locator("xpath=..").locator(".help").textContent();
  assert.match(await help("ctl-mech"), /^dp-sgd: whole DP-SGD runs, sampled/);
  await page.selectOption("#ctl-pair", "two-crowds");
  assert.match(await help("ctl-pair"), /^two-crowds: a preset pair that catches/);
  assert.match(await readout(page, "halt"), /^1 on A, 1 on B \(exact\)/);
  await page.selectOption("#ctl-mutant", "no-gate");
  // caught presses M and waits for the Monte Carlo audit's violation,
  // logging its time and ticks.
  const caught = async (what, shot) => {
    await page.locator("#figure").focus();
    const t0 = Date.now();
    await page.evaluate(() => Object.assign(window.uldpStats, { ticks: 0, maxTickMs: 0 }));
    await page.keyboard.press("m");
    await page.waitForFunction(() => /violation/.test(document.querySelector('#readouts dd[data-name="mc"]')?.textContent), null, { timeout: 60000 });
    const ticks = await page.evaluate(() => ({ ticks: window.uldpStats.ticks, max_tick_ms: +window.uldpStats.maxTickMs.toFixed(1) }));
    console.log(`# ${what} in the browser: ${Date.now() - t0} ms, ${JSON.stringify(ticks)}`);
    await page.screenshot({ path: shots + shot });
  };
  await caught("DP-SGD Monte Carlo audit, 2 × 1.1·10⁵ whole runs", "audit-dp-sgd.png");
  await prose(page, /that one bit loses at most/);
  // Robust SGD: the indicator kernel breaks the test's exact law on the
  // Huber pair, from the guided step's link; no-clip is caught by sampling.
  await page.click("#prose a:has-text('pair huber-edge')");
  await page.waitForFunction(() => document.querySelector("#ctl-mutant").value === "indicator-kernel");
  assert.match(await readout(page, "test"), /VIOLATION/);
  await page.selectOption("#ctl-mutant", "none");
  assert.match(await readout(page, "test"), /within/);
  await page.selectOption("#ctl-pair", "far-user");
  await page.selectOption("#ctl-mutant", "no-clip");
  await caught("robust SGD Monte Carlo audit, 2 × 10⁵ runs", "audit-robust-sgd.png");
  assert.equal(await page.isDisabled("#export-trace"), true);
  assert.equal(await page.isDisabled("#export-png"), false);
  assert.deepEqual(errors, []);
  await page.close();
});

// Text a student reads, in the prose and in the panel: every mention of an
// erratum is a link to its entry; nothing cites the team's spec.
async function errataLinks(page) {
  return page.evaluate(() => {
    const bad = [];
    for (const root of [document.getElementById("prose"), document.querySelector(".panel"), document.getElementById("status")]) {
      const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      for (let n = walk.nextNode(); n; n = walk.nextNode()) {
        if (/\bspec\b|§/.test(n.data)) bad.push(`cites the spec: ${n.data.trim().slice(0, 80)}`);
        for (const m of n.data.matchAll(/errat(?:um|a) A(\d+)/g)) {
          const a = n.parentElement.closest("a");
          if (!a || a.getAttribute("href") !== `errata.html#a${m[1]}`) bad.push(`not a link: ${m[0]} in ${n.data.trim().slice(0, 80)}`);
        }
      }
    }
    return bad;
  });
}

test("Rates explorer: the bounds on log axes, simulated points arriving with progress, the semi-sensitive crossover", async () => {
  // Without workers, as in a browser that has none or whose worker failed
  // (the next test has the sweep in a worker): the page computes itself.
  const { page, errors } = await open("#scene=rates", noWorkers);
  // The sweep runs between frames, a DP-SGD step at a time: progress first,
  // then the points, and no call into Go long enough to freeze the page.
  // The first point is also the module's warm-up: the browser compiles
  // each function on its first call, and the first point's runs reach
  // them all (one call of 80–142 ms on a loaded machine, while the same
  // sweep on the warm module stays under 25 ms), so it is held to the
  // warm-up's bound, and every call after it to a frame's 100 ms.
  await resetCalls(page);
  await page.waitForSelector('#readouts dd[data-name="computing"]', { timeout: 10000 });
  await page.waitForFunction(() => uldp.locate(1), null, { timeout: 30000 });
  const first = await calls(page, false);
  await resetCalls(page);
  const sim = await readout(page, "sim-slope");
  const sweep = await calls(page, false);
  console.log(`# rates explorer's first point: ${JSON.stringify(first)}; the rest of the sweep: ${JSON.stringify(sweep)}`);
  assert.ok(first.max_go_call_ms < 1000, `a call into Go (${first.max_go_call}) took ${first.max_go_call_ms} ms for the first point: is a computation done in one call?`);
  assert.ok(sweep.max_go_call_ms < 100, `a call into Go (${sweep.max_go_call}) took ${sweep.max_go_call_ms} ms during the sweep, after its first point`);
  assert.match(sim, /over 5 points; the optimal bound's -[01]\.\d+ there/);
  assert.ok(parseFloat(sim) > -1.2 && parseFloat(sim) < -0.7, "the simulated slope across n: " + sim);
  assert.match(await readout(page, "optimal"), /^0\.0\d+, slope -0\.\d+ along n/);
  assert.ok(await page.evaluate(() => uldp.locate(5)), "the fifth point is drawn");
  await page.screenshot({ path: shots + "rates.png" });
  // Along m the sweep reaches 1,600 users of 64 items (13 MB of data a
  // run): they are drawn a block at a time too, not in one call.
  await resetCalls(page);
  await page.selectOption("#ctl-axis", "m");
  assert.match(await readout(page, "group"), /slope [-+]0\.\d+ along m/);
  await idle(page);
  assert.match(await readout(page, "sim-slope"), /over 4 points/);
  const alongM = await calls(page, false);
  console.log(`# rates explorer's sweep along m: ${JSON.stringify(alongM)}`);
  assert.ok(alongM.max_go_call_ms < 100, `a call into Go (${alongM.max_go_call}) took ${alongM.max_go_call_ms} ms during the sweep along m`);
  await page.screenshot({ path: shots + "rates-m.png" });
  // The opening sweep again, on the warm module.
  await resetCalls(page);
  await page.selectOption("#ctl-axis", "n");
  await idle(page);
  assert.match(await readout(page, "sim-slope"), /over 5 points/);
  const again = await calls(page, false);
  console.log(`# rates explorer's sweep along n again: ${JSON.stringify(again)}`);
  assert.ok(again.max_go_call_ms < 100, `a call into Go (${again.max_go_call}) took ${again.max_go_call_ms} ms during the sweep along n`);
  await page.selectOption("#ctl-family", "semi-sensitive");
  await page.selectOption("#ctl-axis", "d");
  assert.match(await readout(page, "crossover"), /d\* ≈/);
  assert.equal((await state(page)).get("family"), "semi-sensitive");
  await page.screenshot({ path: shots + "rates-semi.png" });
  assert.deepEqual(errors, []);
  await page.close();
  const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  await phone.goto(base + "#scene=rates");
  await phone.waitForSelector("body[data-ready=true]");
  await idle(phone);
  await phone.screenshot({ path: shots + "rates-phone.png" });
  await phone.close();
});

test("Rates explorer: the sweep computes in a worker and shows what the page would have computed; a change mid-sweep replaces it; a failing worker leaves the page computing", async () => {
  // words is the panel once the sweep is done: every readout.
  const words = async (page) => {
    await idle(page);
    return page.evaluate(() => [...document.querySelectorAll("#readouts dd")].map((d) => `${d.dataset.name}: ${d.textContent}`).join("\n"));
  };
  const sweep = "#scene=rates&seeds=4";
  // The page's own computation, for reference: a browser without workers.
  const here = await open(sweep, noWorkers);
  const hereWords = await words(here.page);
  await follow(here.page, "#scene=rates&seeds=4&axis=eps");
  const hereChanged = await words(here.page);
  assert.deepEqual(here.errors, []);
  await here.page.close();
  assert.match(hereWords, /sim-slope: .*over 5 points/);
  assert.match(hereChanged, /sim-slope: .*over 6 points/);

  // With a worker: the page's ticks hold the sweep (a tick that computes
  // takes a 10 ms slice; a held one next to nothing: the mean over the
  // sweep says which, where one slow call on a busy machine would not),
  // and the outcomes arrive a tenth of a second apart.
  const { page, errors, warnings } = await open(sweep);
  await page.waitForFunction(() => window.uldpAdopted >= 1, null, { timeout: 30000 });
  await page.evaluate(() => Object.assign(uldpStats, { ticks: 0, tickMs: 0 }));
  const elsewhere = await words(page);
  const ticks = await page.evaluate(() => ({ n: uldpStats.ticks, meanMs: uldpStats.tickMs / Math.max(1, uldpStats.ticks), offloads: uldpOffloads, adopted: uldpAdopted }));
  console.log(`# rates explorer's sweep in a worker: ${JSON.stringify(ticks)}`);
  assert.equal(ticks.offloads, 1, "the opening sweep was handed to the worker once");
  assert.equal(elsewhere, hereWords, "the worker's sweep shows otherwise than the page's own");
  assert.ok(ticks.n >= 10, `only ${ticks.n} frames while the worker computed: too few to tell whether the page computed`);
  assert.ok(ticks.meanMs < 3, `the page's ticks took ${ticks.meanMs.toFixed(2)} ms on average during the sweep: it computed itself`);
  // Changes mid-sweep: each new sweep replaces the one under way, in the
  // same worker, and the last one's points are the page's own. (Two
  // changes within one frame that come back to the sweep under way leave
  // it be: how many sweeps are handed out is not checked.)
  await page.selectOption("#ctl-axis", "eps");
  await page.waitForFunction(() => window.uldpOffloads === 2, null, { timeout: 10000 });
  await page.selectOption("#ctl-axis", "n");
  await page.selectOption("#ctl-axis", "eps");
  assert.equal(await words(page), hereChanged, "after changes mid-sweep, the worker's last sweep shows otherwise than the page's own");
  assert.ok(await page.evaluate((n) => uldpAdopted > n, ticks.adopted), "no outcome adopted after the changes");
  assert.deepEqual(warnings.filter((w) => /computing/.test(w)), [], "the worker gave up");
  // A setting more precise than the link carries: the worker's copy,
  // restored from the link, would compute another sweep, so this one is
  // computed on the page, and the next handed out again.
  await page.evaluate(() => { location.hash = "#scene=rates&seeds=4&axis=n&eps=0.250000001"; });
  await page.waitForFunction(() => /axis=n/.test(uldp.state()) && /eps=0\.25(&|$)/.test(uldp.state()), null, { timeout: 20000 });
  assert.match(await words(page), /sim-slope: .*over 5 points/);
  assert.ok(warnings.some((w) => /computing this one on the page/.test(w)), "the unrestorable sweep went unsaid: " + warnings);
  const handed = await page.evaluate(() => uldpOffloads);
  await page.selectOption("#ctl-axis", "d");
  await page.waitForFunction((n) => window.uldpOffloads > n, handed, { timeout: 10000 });
  await idle(page);
  assert.deepEqual(warnings.filter((w) => /instead/.test(w)), [], "the worker was given up for good");
  assert.deepEqual(errors, []);
  await page.close();

  // A worker that fails: the page says why in the console and computes.
  const broken = await open(sweep, (p) => p.route("**/compute.js", (route) => route.fulfill({
    contentType: "text/javascript", body: "self.onmessage = (e) => self.postMessage({ key: e.data.key, error: 'broken on purpose' });",
  })));
  assert.equal(await words(broken.page), hereWords, "with a failing worker, the page's sweep shows otherwise");
  assert.ok(broken.warnings.some((w) => /broken on purpose; computing on the page instead/.test(w)), "the failing worker went unsaid: " + broken.warnings);
  assert.equal(await broken.page.evaluate(() => uldpAdopted), 0);
  assert.deepEqual(broken.errors, []);
  await broken.page.close();
});

test("Semi-sensitive features: the run computes in a worker, steps to the end, the second panel switches views, a clicked cell makes a neighbour kept in the link", async () => {
  const started = Date.now();
  const { page, errors } = await open("#scene=semi-sensitive");
  await resetCalls(page);
  await idle(page);
  const run = await calls(page, false);
  console.log(`# semi-sensitive's run: ${JSON.stringify(run)}, ${Date.now() - started} ms from opening to done`);
  assert.ok(run.max_go_call_ms < 100, `a call into Go (${run.max_go_call}) took ${run.max_go_call_ms} ms during the run`);
  const handed = await page.evaluate(() => ({ offloads: uldpOffloads, adopted: uldpAdopted }));
  assert.ok(handed.offloads >= 1 && handed.adopted >= 1, `the run handed to the worker and adopted: ${JSON.stringify(handed)}`);
  // It reads as the same run computed on the page without workers.
  const here = await open("#scene=semi-sensitive", noWorkers);
  await idle(here.page);
  assert.equal(await here.page.textContent("#readouts"), await page.textContent("#readouts"), "the run computed on the page reads differently");
  assert.deepEqual(here.errors, []);
  await here.page.close();
  assert.match(await readout(page, "answered"), /^all 100/);
  assert.match(await readout(page, "eps-prime"), /^0\.079/);
  assert.match(await page.textContent("#guarantee"), /\(ε = 4, δ = 0\.000001\)-DP for the sensitive feature \(semi-sensitive\) — certified/);
  await page.screenshot({ path: shots + "semi-sensitive-open.png" });
  await page.keyboard.press("End");
  assert.match(await status(page), /^step 100 of 100/);
  assert.match(await readout(page, "updates"), /of 20 paid for, after query 100 of 100/);
  assert.match(await readout(page, "psi"), /from ln k = 2\.0794/);
  await page.screenshot({ path: shots + "semi-sensitive-end.png" });
  // The second panel's views redraw without a new run, and the link keeps them.
  for (const panel of ["scores", "condition-14", "lower-bound", "tests"]) {
    await page.selectOption("#ctl-panel", panel);
    assert.equal((await state(page)).get("panel"), panel);
    assert.match(await status(page), /^step 100 of 100/);
    if (panel !== "tests") await page.screenshot({ path: shots + `semi-sensitive-${panel}.png` });
  }
  // A click on example 1's cell for another value: a neighbour, in the link.
  const box = await page.locator("#figure").boundingBox();
  const [x, y] = await page.evaluate(() => uldp.locate(1 + 4));
  await page.mouse.click(box.x + x, box.y + y);
  await idle(page);
  assert.equal((await state(page)).get("moved"), "1=5");
  assert.match(await readout(page, "answered"), /^all 100/);
  // The paper's truncation takes η down with it, and the run fails; the
  // η it takes is one the link carries, so the worker computes the run.
  const adoptedBefore = await page.evaluate(() => uldpAdopted);
  await page.fill("#ctl-c", "3");
  await page.press("#ctl-c", "Enter");
  assert.match(await readout(page, "answered"), /then FAIL/);
  assert.ok(await page.evaluate((n) => uldpAdopted > n, adoptedBefore), "the run after c = 3 was not computed in the worker");
  assert.equal((await state(page)).get("eta"), String(1 / 3).slice(0, 8));
  await page.screenshot({ path: shots + "semi-sensitive-fail.png" });
  assert.deepEqual(errors, []);
  await page.close();
  const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  await phone.goto(base + "#scene=semi-sensitive&reveal=false");
  await phone.waitForSelector("body[data-ready=true]");
  await idle(phone);
  await phone.keyboard.press("End");
  await phone.screenshot({ path: shots + "semi-sensitive-phone.png" });
  await phone.close();
});

test("Exercises: one answered right, one wrong, one by dragging, a bug found; progress survives a reload; the hand-in grades the same", async () => {
  // The student types her name before answering: her own numbers.
  const key = JSON.parse(execFileSync(root + "bin/uldp", ["exercises", "solve", "--pack", "builtin", "--student", "Ada Lovelace"])).answers;
  const { page, errors } = await open();
  const api = [];
  page.on("request", (r) => { if (r.url().includes("/api/")) api.push(r.url().replace(base, "") + " " + (r.postData() || "")); });
  await page.click("#exercises-open");
  await page.waitForSelector("#ex-dialog[open] .ex-items li");
  assert.equal(await page.$$eval(".ex-items li", (l) => l.length), Object.keys(key).length);
  await page.fill("#ex-student", "Ada Lovelace");
  await page.click(".ex-items li:first-child a");
  await page.waitForSelector("#exercise:not([hidden])");
  await lesson(page, "user-level");
  assert.match(await page.textContent("#ex-question"), /opens on twenty users holding ten items/);
  // Her own numbers: the sheet she was shown is hers, and says so.
  const own = JSON.parse(execFileSync(root + "bin/uldp", ["exercises", "list", "--student", "Ada Lovelace"]))[0].question;
  assert.equal(await page.textContent("#ex-question"), own);
  assert.ok(await page.isVisible("#ex-own"), "a varied exercise does not say its numbers are the student's own");
  // The page holds no key before the student commits.
  assert.ok(!api.some((r) => /explanation|"correct"/.test(r)), api.join("\n"));
  const sheet = await page.evaluate(() => JSON.stringify(sheet));
  assert.ok(!/"correct"|"explanation"|"example"/.test(sheet), "the page's sheet holds a key");
  // Right: the instructor's key, typed in.
  await page.fill("#ex-number", String(key["user-level-sensitivity"]));
  await page.click("#ex-answer button[type=submit]");
  await page.waitForSelector("#ex-feedback.right:not([hidden])");
  assert.match(await page.textContent("#ex-feedback"), /^Right/);
  assert.ok(api.some((r) => r.startsWith("api/grade") && r.includes('"student":"Ada Lovelace"')), api.join("\n"));
  await page.screenshot({ path: shots + "exercise-right.png" });
  // Wrong: the next exercise by its key, ], a choice that is not the key.
  await page.locator("#figure").focus();
  await page.keyboard.press("]");
  await page.waitForFunction(() => /Exercise 2 of/.test(document.querySelector("#ex-title").textContent));
  await page.click("#ex-hint");
  assert.ok((await page.textContent("#ex-hints")).length > 10, "a hint is shown on request");
  await page.check(`input[name=ex-choice][value="${(key["user-level-ratio"] + 1) % 4}"]`);
  await page.click("#ex-answer button[type=submit]");
  await page.waitForSelector("#ex-feedback.wrong:not([hidden])");
  assert.match(await page.textContent("#ex-feedback"), /^Not quite: you chose .* the answer is “it is m times larger”/);
  // A manipulation: drag the far user of the stability lesson into the crowd.
  await page.click("#ex-list");
  await page.click('.ex-items a >> text=/Move the far user/');
  await lesson(page, "stability");
  await page.click("#ctl-end");
  await dragFarUserIn(page);
  assert.match(await readout(page, "rstar"), /^0 /);
  await page.click("#ex-answer button[type=submit]");
  await page.waitForSelector("#ex-feedback:not([hidden])");
  assert.match(await page.textContent("#ex-feedback"), /^Right: on your state the lesson's rstar reads/);
  // Find the bug: the lab's broken-variant setting, and the preset pair
  // that catches it (the exercise opens on the one that does not).
  await page.click("#ex-list");
  await page.click(".ex-items a >> text=/A colleague's ORME is broken/");
  await lesson(page, "audit");
  await page.selectOption("#ctl-mutant", "keep-all");
  await page.selectOption("#ctl-pair", "far-user");
  await idle(page);
  await page.click("#ex-answer button[type=submit]");
  await page.waitForSelector("#ex-feedback:not([hidden])");
  assert.match(await page.textContent("#ex-feedback"), /^Right: “keep-all” is the broken variant; on your pair the exact δ/);
  await page.click("#ex-list");
  await page.click('.ex-items a >> text=/Move the far user/');
  await lesson(page, "stability");
  const total = Object.keys(key).length;
  assert.equal(await page.textContent("#ex-score"), `score 3 of ${total} (4 answered)`);
  await page.screenshot({ path: shots + "exercise-manipulate.png" });
  // A reload keeps it all: the exercise open, its feedback, the score.
  await page.reload();
  await page.waitForSelector("body[data-ready=true]");
  await page.waitForSelector("#exercise:not([hidden])");
  assert.equal(await page.textContent("#ex-score"), `score 3 of ${total} (4 answered)`);
  assert.match(await page.textContent("#ex-feedback"), /^Right/);
  assert.equal(await page.textContent("#exercises-open"), `Exercises 3/${total}`);
  // The hand-in, graded by the teacher's command, scores the same.
  await page.click("#ex-list");
  assert.match(await page.textContent("#ex-summary"), new RegExp(`3 right of ${total} \\(4 answered\\)`));
  assert.equal(await page.$$eval(".ex-items .mark.right", (m) => m.length), 3);
  assert.ok(await page.$eval("#ex-student", (i) => i.readOnly), "the name stays editable after answers were graded with its numbers");
  await page.screenshot({ path: shots + "exercise-list.png" });
  const [dl] = await Promise.all([page.waitForEvent("download"), page.click("#ex-handin")]);
  assert.equal(dl.suggestedFilename(), "uldp-handin-ada-lovelace.json");
  const file = mkdtempSync(tmpdir() + "/uldp-") + "/handin.json";
  await dl.saveAs(file);
  const graded = JSON.parse(execFileSync(root + "bin/uldp", ["grade", "--answers", file]));
  assert.equal(graded.score, 3);
  assert.deepEqual(graded.results.filter((r) => r.correct).map((r) => r.id), ["user-level-sensitivity", "stability-no-removal", "audit-orme-bug"]);
  assert.deepEqual(errors, []);
  await page.close();
});

test("Exercises: a teacher's pack file, loaded in the page and graded by the server", async () => {
  const { page, errors } = await open();
  const pack = {
    version: 1, title: "Week 3",
    exercises: [{ id: "sigma-half", lesson: "calibration", kind: "numeric", state: "mech=gaussian&eps=0.5&delta=1e-05",
      question: "At ε = 0.5, δ = 10⁻⁵, what σ does the classical Gaussian need for the user-level mean?",
      answer: { readout: "user-scale", tolerance: 0.01, relative: true }, hints: ["Read the derivation."], explanation: "σ = √(2 ln(1.25/δ))·Δ/ε." }],
  };
  await page.click("#exercises-open");
  await page.waitForSelector("#ex-dialog[open]");
  // Choosing "a pack file…" opens the file picker; the test hands it the file.
  const [chooser] = await Promise.all([page.waitForEvent("filechooser"), page.selectOption("#ex-pack", "file")]);
  await chooser.setFiles({ name: "week3.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(pack)) });
  await page.waitForFunction(() => /Week 3/.test(document.querySelector("#ex-summary").textContent));
  assert.equal(await page.$$eval(".ex-items li", (l) => l.length), 1);
  await page.click(".ex-items li:first-child a");
  await lesson(page, "calibration");
  await page.waitForSelector("#exercise:not([hidden])");
  const sigma = parseFloat(await readout(page, "user-scale"));
  await page.fill("#ex-number", String(sigma));
  await page.click("#ex-answer button[type=submit]");
  await page.waitForSelector("#ex-feedback.right:not([hidden])");
  assert.match(await page.textContent("#ex-feedback"), /σ = √\(2 ln\(1\.25\/δ\)\)·Δ\/ε\./);
  // A malformed pack is refused with its place, and the pack in use stays.
  await page.click("#ex-list");
  const [again] = await Promise.all([page.waitForEvent("filechooser"), page.selectOption("#ex-pack", "file")]);
  await again.setFiles({ name: "bad.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify({ version: 1, title: "x", exercises: [{ id: "a" }] })) });
  await page.waitForSelector("#banner:not([hidden])");
  assert.match(await page.textContent("#banner"), /bad\.json cannot be used: pack: exercises\[0\]/);
  assert.match(await page.textContent("#ex-summary"), /Week 3: 1 right of 1/);
  assert.deepEqual(errors.filter((e) => !/status of 400/.test(e)), []);
  await page.close();
});

test("A figure squeezed to nothing (a phone turning) throws nothing and paints again at its size", async () => {
  // Lesson 6 paints a cached layer (drawImage of a 0-size canvas threw),
  // lesson 9 its users as dots (an ImageData of 0 rows threw).
  for (const name of ["dp-sgd", "robust-sgd"]) {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
    await page.goto(base + "#scene=" + name);
    await page.waitForSelector("body[data-ready=true]", { timeout: 20000 });
    await idle(page);
    await page.evaluate(() => { document.querySelector("#figure").style.height = "0px"; });
    await page.click("#ctl-step");
    await page.click("#ctl-step");
    assert.equal(await page.evaluate(() => document.querySelector("#figure").height), 0, `${name}: the figure was not squeezed`);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    await page.evaluate(() => { document.querySelector("#figure").style.height = ""; });
    await page.waitForFunction(() => {
      const c = document.querySelector("#figure");
      if (c.height === 0) return false;
      const px = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
      for (let i = 3; i < px.length; i += 4) if (px[i] > 0) return true;
      return false;
    }, null, { timeout: 10000 });
    assert.deepEqual(errors, [], name);
    await page.close();
  }
});

test("Exercises on a phone: the bar above the lesson", async () => {
  const page = await browser.newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  await page.goto(base);
  await page.waitForSelector("body[data-ready=true]");
  await page.click("#exercises-open");
  await page.click(".ex-items li:nth-child(4) a");
  await lesson(page, "calibration");
  await page.waitForSelector("#exercise:not([hidden])");
  await page.screenshot({ path: shots + "exercise-phone.png" });
  await page.close();
});

test("Errata and words: links to the errata page, no spec citations, no stale status, each lesson's own keys", async () => {
  const { page, errors } = await open("#scene=phased-erm");
  const menu = (await (await fetch(base + "lessons.json")).json()).lessons.map((l) => l.name);
  await page.locator("#figure").focus();
  for (let i = 0; i < 3; i++) await page.keyboard.press("ArrowRight");
  const phased = await status(page);
  assert.match(phased, /phase 2/);
  for (const [i, name] of menu.entries()) {
    // From lesson 7's status line to lesson i + 1: the line is that
    // lesson's own, never lesson 7's.
    await page.keyboard.press("7");
    await lesson(page, "phased-erm");
    await page.locator("#figure").focus();
    await page.keyboard.press("r");
    for (let k = 0; k < 3; k++) await page.keyboard.press("ArrowRight");
    assert.equal(await status(page), phased);
    // The number row reaches lessons 1–12 (0, -, = after 9); the menu, any beyond.
    const rowKeys = "1234567890-=";
    if (i < rowKeys.length) await page.keyboard.press(rowKeys[i]);
    else await page.click(`#lessons a[data-scene="${name}"]`);
    await lesson(page, name);
    await page.waitForFunction((n) => document.querySelector("#prose h2") && document.body.dataset.lesson === n, name);
    if (name !== "phased-erm") assert.notEqual(await status(page), phased, `${name} kept lesson 7's status`);
    assert.deepEqual(await errataLinks(page), [], name);
    // The keys legend lists this lesson's keys and the real lesson count.
    const keys = await page.textContent("#keys");
    assert.match(keys, menu.length === 12 ? /1–9, 0, -, = lessons$/ : menu.length === 10 ? /1–9, 0 lessons$/ : new RegExp(`1–${menu.length} lessons`));
    const stepped = await page.evaluate(() => document.querySelector("#stepper button") !== null);
    assert.equal(keys.includes("→"), stepped, `${name}: keys "${keys}"`);
    await page.locator("#figure").focus();
  }
  // The same lesson through the address bar: back at step 0, no old status.
  await page.keyboard.press("7");
  await lesson(page, "phased-erm");
  await page.evaluate(() => { location.hash = "#scene=phased-erm&seed=2"; });
  await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get("seed") === "2");
  await page.waitForFunction((old) => document.getElementById("status").textContent !== old, phased);
  // The errata page: an entry per erratum, reached from a lesson's link.
  await page.keyboard.press("5");
  await lesson(page, "outlier-removal");
  await prose(page, /erratum A15/);
  await Promise.all([page.waitForURL(/errata\.html#a15$/), page.click("#prose a[href='errata.html#a15']")]);
  assert.match(await page.textContent("#a15"), /Lemma 3\.3/);
  assert.ok(await page.evaluate(() => document.querySelectorAll("h2[id^=a]").length >= 15));
  await page.screenshot({ path: shots + "errata.png" });
  assert.deepEqual(errors, []);
  await page.close();
});

test("an uncertified claim says why in the lesson's words, its nearest certified settings one click away; counts stay whole", async () => {
  const { page, errors } = await open("#scene=outlier-removal");
  assert.match(await page.textContent("#guarantee"), /NOT certified[\s\S]*Paper mode runs the constants as printed, and their proof has a gap \(erratum A13\)[\s\S]*certifies it only from 263 users/);
  assert.equal(await page.getAttribute("#guarantee a.erratum", "href"), "errata.html#a13");
  await page.click("#use-certified");
  await page.waitForFunction(() => document.getElementById("ctl-mode").value === "sound");
  assert.equal((await state(page)).get("n"), "263");
  assert.match(await page.textContent("#guarantee .claim"), /— certified$/);
  assert.equal(await page.isVisible("#use-certified"), false);
  assert.equal(await page.evaluate(() => document.activeElement.classList.contains("claim")), true, "the focus went to the claim");
  // Across the boundary and back (263 users certify, 262 do not): the
  // button comes and goes in the guarantee's box, the form stays as it is.
  await page.evaluate(() => { document.getElementById("ctl-n").dataset.mark = "kept"; });
  for (const [n, claim] of [["262", /NOT certified$/], ["263", /— certified$/]]) {
    await page.fill("input[aria-label='users n value']", n);
    await page.press("input[aria-label='users n value']", "Enter");
    await page.waitForFunction((re) => new RegExp(re).test(document.querySelector("#guarantee .claim").textContent), claim.source);
    assert.equal(await page.isVisible("#use-certified"), n === "262");
    assert.equal(await page.evaluate(() => document.getElementById("ctl-n").dataset.mark), "kept", `n = ${n} rebuilt the form`);
  }
  // A value typed in a slider's box and entered moves the handle too (the
  // box keeps the focus; the handle stayed where it was).
  await page.fill("input[aria-label='users n value']", "100");
  await page.press("input[aria-label='users n value']", "Enter");
  await page.waitForFunction(() => document.getElementById("ctl-n").value === "100"); // a linear slider: its value is n
  // A log slider over a count gives whole numbers wherever it stops.
  await page.goto(base + "#scene=user-level");
  await page.waitForSelector("body[data-lesson=user-level]");
  for (const v of ["137", "503", "999"]) {
    await page.evaluate((x) => { const el = document.getElementById("ctl-n"); el.value = x; el.dispatchEvent(new Event("input")); }, v);
    const n = await page.inputValue("input[aria-label='users n value']");
    assert.match(n, /^\d+$/, `slider at ${v} gave n = ${n}`);
    assert.equal((await state(page)).get("n"), n);
  }
  assert.deepEqual(errors, []);
  await page.close();
});

test("Every lesson opens certified, non-private, or saying why in one line, its nearest certified settings one click away", async () => {
  const menu = (await (await fetch(base + "lessons.json")).json()).lessons.map((l) => l.name);
  const { page, errors } = await open("#scene=" + menu[0]);
  const claim = () => page.textContent("#guarantee .claim");
  for (const name of menu) {
    await page.evaluate((n) => { location.hash = "#scene=" + n; }, name);
    await lesson(page, name);
    await idle(page);
    const c = await claim();
    if (/— certified$|^No privacy guarantee \(non-private mode\)$/.test(c)) continue;
    assert.match(c, /NOT certified$/, name);
    const why = await page.textContent("#certify-why").catch(() => "");
    assert.ok(why.length > 80, `${name} opens NOT certified and says nothing of why (“${why}”)`);
    if (!(await page.$("#use-certified"))) { console.log(`# ${name}: no certified settings within reach: ${why}`); continue; }
    await page.click("#use-certified");
    await idle(page);
    await page.waitForFunction(() => /— certified$/.test(document.querySelector("#guarantee .claim").textContent), null, { timeout: 60000 });
    console.log(`# ${name}: certified at ${await page.evaluate(() => location.hash)}`);
  }
  assert.deepEqual(errors, []);
  await page.close();
});

test("Each lesson's module is rehearsed once, in a worker, after the lesson has opened", async () => {
  const menu = (await (await fetch(base + "lessons.json")).json()).lessons;
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  page.on("console", (m) => { if (m.type() === "error" || m.type() === "warning") errors.push(m.text()); });
  page.on("pageerror", (e) => errors.push(String(e)));
  // The page rehearses on two cores or more: so does this test, whatever
  // the machine running it reports.
  await page.addInitScript(() => Object.defineProperty(navigator, "hardwareConcurrency", { get: () => 2 }));
  await page.goto(base + "#scene=" + menu[0].name);
  const stages = [];
  let tries = 0;
  for (const [i, { name, module }] of menu.entries()) {
    if (i > 0) await page.evaluate((n) => { location.hash = "#scene=" + n; }, name);
    await lesson(page, name);
    await idle(page);
    const r = await page.evaluate(() => window.uldpRehearsed);
    assert.equal(r?.module, module, `${name}: the latest rehearsal is not of its module`);
    assert.equal(r.error, undefined, `${name}: the rehearsal failed`);
    // Past its first draws at least; how far a busy machine lets it get
    // within its 2 s is printed, not checked.
    assert.ok(["drawn", "collected", "keys", "drags", "played"].includes(r.stage), `${name}: the rehearsal ended at “${r.stage}”`);
    stages.push(`${name} ${r.stage} (${Math.round(r.ms)} ms, ${r.calls} calls${r.tries > 1 ? `, try ${r.tries}` : ""})`);
    tries += r.tries;
  }
  console.log(`# rehearsals: ${stages.join("; ")}`);
  // One worker a try; a try gives way only to a computation of the page's.
  assert.equal(await page.evaluate(() => window.uldpRehearsals), tries, "workers started for the lessons");
  // A lesson shown again runs on its module as rehearsed: no worker again.
  await page.evaluate((n) => { location.hash = "#scene=" + n; }, menu[0].name);
  await lesson(page, menu[0].name);
  await idle(page);
  assert.equal(await page.evaluate(() => window.uldpRehearsals), tries, "a module was rehearsed twice");
  assert.deepEqual(errors, []);
  await page.close();
});

test("shared links restore the view", async () => {
  const { page } = await open("#scene=abovethreshold&eps=2&queries=20,20,1&seed=5&threshold=10");
  await page.click("#ctl-end");
  const first = await page.evaluate(() => ({ s: document.getElementById("status").textContent, h: location.hash }));
  const again = await open(first.h);
  await again.page.click("#ctl-end");
  assert.equal(await status(again.page), first.s);
  await page.close();
  await again.page.close();
});

test("exports: CSV of the dataset and JSON of the trace, lesson 12's PVMW trace without a CSV", async () => {
  const { page } = await open("#scene=abovethreshold&queries=4,5.5");
  const [csv] = await Promise.all([page.waitForEvent("download"), page.click("#export-csv")]);
  const csvText = await (await csv.createReadStream()).toArray().then((c) => Buffer.concat(c).toString());
  assert.equal(csvText, "user,x1\n1,4\n2,5.5\n");
  const [tr] = await Promise.all([page.waitForEvent("download"), page.click("#export-trace")]);
  const trace = JSON.parse(await (await tr.createReadStream()).toArray().then((c) => Buffer.concat(c).toString()));
  assert.equal(trace.mechanism, "abovethreshold");
  assert.equal(trace.steps[0].kind, "at.threshold");
  const [png] = await Promise.all([page.waitForEvent("download"), page.click("#export-png")]);
  assert.match(png.suggestedFilename(), /\.png$/);
  await page.close();
  // Lesson 12: its examples are no users' items, so no CSV; the trace is
  // PVMW's, rebuilt from the link by the lesson's export module in a Web
  // Worker: the rebuild trains PVMW again (about 2 s at the defaults, more
  // at larger settings), and the page's thread stays free meanwhile (on
  // the page it was one task of the training's length). The bound on the
  // page's longest task while the trace is made leaves room for a busy
  // machine; the training alone takes longer.
  const semi = await open("#scene=semi-sensitive&moved=1%3D5");
  await idle(semi.page);
  assert.equal(await semi.page.isDisabled("#export-csv"), true);
  await semi.page.evaluate(() => {
    window.tasks = [];
    new PerformanceObserver((l) => { for (const e of l.getEntries()) window.tasks.push(e.duration); }).observe({ type: "longtask" });
  });
  const t0 = Date.now();
  const [st] = await Promise.all([semi.page.waitForEvent("download"), semi.page.click("#export-trace")]);
  const exportMs = Date.now() - t0;
  const pvmw = JSON.parse(await (await st.createReadStream()).toArray().then((c) => Buffer.concat(c).toString()));
  assert.equal(pvmw.mechanism, "pvmw");
  assert.equal(pvmw.steps[0].kind, "pvmw.threshold");
  assert.equal(pvmw.steps.filter((x) => x.kind === "pvmw.descent").length, 100);
  const made = await semi.page.evaluate(() => ({ elsewhere: uldpExportsElsewhere, onPage: typeof window.uldpExport, longest: Math.max(0, ...window.tasks) }));
  console.log(`# the semi-sensitive trace exported in ${exportMs} ms, ${JSON.stringify(made)}`);
  assert.deepEqual([made.elsewhere, made.onPage], [1, "undefined"], "the trace was not made in the export worker");
  assert.ok(made.longest < 300, `the page's thread was busy for ${made.longest} ms at once while the trace was made`);
  assert.deepEqual(semi.errors, []);
  await semi.page.close();
  // Without workers the page makes it itself.
  const bare = await open("#scene=abovethreshold&queries=4,5.5", noWorkers);
  const [bt] = await Promise.all([bare.page.waitForEvent("download"), bare.page.click("#export-trace")]);
  assert.equal(JSON.parse(await (await bt.createReadStream()).toArray().then((c) => Buffer.concat(c).toString())).mechanism, "abovethreshold");
  assert.deepEqual(bare.errors, []);
  await bare.page.close();
});

// dragFigures drags a user's mean 60 times and returns the page's timing
// figures for those frames, and how often the users' layer was painted;
// each paint waits for the canvas's raster, so the draw figures are the
// whole paint.
async function dragFigures(page, n, m) {
  await page.evaluate(() => {
    Object.assign(window.uldpStats, { updates: 0, updateMs: 0, maxUpdateMs: 0, draws: 0, drawMs: 0, maxDrawMs: 0, maxFrameMs: 0, layerPaints: 0 });
    window.uldpFlushPaint = true;
  });
  const box = await page.locator("#figure").boundingBox();
  const [x, y] = await page.evaluate((id) => uldp.locate(id), 1 + n * m + 7);
  await page.mouse.move(box.x + x, box.y + y);
  await page.mouse.down();
  for (let i = 0; i < 60; i++) await page.mouse.move(box.x + x + (i % 20) * 3, box.y + y);
  await page.mouse.up();
  const st = await page.evaluate(() => { window.uldpFlushPaint = false; return window.uldpStats; });
  return {
    n, m, frames: st.updates,
    update_mean_ms: +(st.updateMs / st.updates).toFixed(2), update_max_ms: +st.maxUpdateMs.toFixed(2),
    draw_mean_ms: +(st.drawMs / st.draws).toFixed(2), draw_max_ms: +st.maxDrawMs.toFixed(2),
    frame_mean_ms: +((st.updateMs + st.drawMs) / st.updates).toFixed(2), frame_max_ms: +st.maxFrameMs.toFixed(2),
    layer_paints: st.layerPaints,
  };
}

test("performance: first interactive frame, download size and drag frames", async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(base + "#scene=user-level&n=500&m=20&seed=1");
  await page.waitForSelector("body[data-ready=true]", { timeout: 20000 });
  // Bytes on the wire up to the first interactive frame (the next lesson's
  // module, fetched ahead once the page is idle, comes after it and is not
  // counted).
  const { ready, wire, engine } = await page.evaluate(() => {
    const ready = window.uldpReadyAt;
    const nav = performance.getEntriesByType("navigation")[0];
    const res = performance.getEntriesByType("resource").filter((e) => e.startTime < ready);
    const eng = res.find((e) => /\/engine\//.test(e.name));
    return { ready, wire: nav.transferSize + res.reduce((a, e) => a + e.transferSize, 0), engine: { raw: eng.decodedBodySize, sent: eng.encodedBodySize } };
  });
  const small = await dragFigures(page, 500, 20);
  await page.evaluate(() => { location.hash = "#scene=user-level&n=2000&m=20&seed=1"; });
  await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get("n") === "2000");
  const large = await dragFigures(page, 2000, 20);
  const figures = { first_interactive_ms: Math.round(ready), wire_bytes_to_interactive: wire, engine_raw_bytes: engine.raw, engine_gzip_bytes: engine.sent, small, large };
  console.log("# perf " + JSON.stringify(figures));
  writeFileSync(shots + "perf.json", JSON.stringify(figures, null, 2));
  // Hard limits: the bytes on the wire for the first lesson (gzip on
  // localhost, where browsers do not ask for brotli). The timing targets
  // (first frame ≤ 1 s, update ≤ 4 ms at 2,000×20, frame ≤ 16 ms at
  // 500×20) are recorded in BENCHMARKS.md; here they are checked with slack
  // so a loaded CI machine does not fail the suite.
  const menu = await (await fetch(base + "lessons.json")).json();
  const brotli = engine.sent === menu.lessons[0].brotli;
  const limit = (brotli ? 0.7 : 0.9) * 1024 * 1024;
  // The raw budget is on the module as Go's linker wrote it, before the
  // build wrote out the zeros between its data segments.
  assert.equal(engine.raw, menu.lessons[0].bytes, "the engine the page decoded is not the one lessons.json names");
  assert.ok(menu.lessons[0].linked <= 3.5 * 1024 * 1024, `engine ${menu.lessons[0].linked} bytes as linked > 3.5 MiB`);
  assert.ok(wire <= limit, `${wire} bytes on the wire (${brotli ? "brotli" : "gzip"}) > ${limit / 1048576} MiB before the first lesson was interactive`);
  assert.ok(small.frames >= 30 && large.frames >= 30, "the drags produced too few frames");
  // The other users are one layer, painted when the drag takes the
  // dragged user out of it and when it is let go, not on every move.
  for (const d of [small, large]) assert.ok(d.layer_paints <= 3, `the users' layer was painted ${d.layer_paints} times in a drag of ${d.frames} frames`);
  assert.ok(ready < 10000, `first interactive frame after ${ready} ms`);
  await page.close();
});
