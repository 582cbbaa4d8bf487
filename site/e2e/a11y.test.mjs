// Accessibility in the browser: axe-core on every lesson (at its default
// state, after a step, at desktop and phone widths), the errata page and
// the exercise mode; the figure moved by keyboard alone; the figure's words
// spoken when something settles and not frame by frame; playback under
// prefers-reduced-motion. Run by `make test` after the lessons' tests.
import { test } from "node:test";
import assert from "node:assert/strict";
import { serve, base, browser, idle, lesson, readout, status, axe } from "./harness.mjs";

serve();

const desktop = { width: 1280, height: 900 }, wide = { width: 1440, height: 900 }, phone = { width: 390, height: 844 };

// firstView says whether the figure, the prose's "What to try" heading
// and the first of the lesson's controls (its presets, where it has them)
// lie wholly within the viewport as the page opens (scrolled to the top):
// a long guarantee once pushed robust SGD's presets below the fold.
const firstView = (p) => p.evaluate(() => {
  scrollTo(0, 0);
  const inside = (e) => { const r = e?.getBoundingClientRect(); return !!r && r.width > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth; };
  const h = [...document.querySelectorAll("#prose h3")].find((e) => /^What to try/.test(e.textContent));
  const control = document.querySelector("#controls select, #controls input, #controls button");
  return { figure: inside(document.querySelector("#figure")), whatToTry: inside(h), firstControl: inside(control) };
});

// page opens url in a fresh page whose policy lets the test inject
// axe-core, and collects console errors.
async function page(url, options = {}) {
  const p = await browser.newPage({ viewport: desktop, bypassCSP: true, ...options });
  const errors = [];
  p.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  p.on("pageerror", (e) => errors.push(String(e)));
  await p.goto(base + url);
  return { p, errors };
}

const menu = async () => (await (await fetch(base + "lessons.json")).json()).lessons.map((l) => l.name);

test("axe-core finds nothing on any lesson, at its default state and after a step, on a desktop and a phone; at 1440×900 the figure, “What to try” and the first control show together, and a phone's header is at most 120 px", async () => {
  const names = await menu();
  const { p, errors } = await page("#scene=" + names[0]);
  await p.waitForSelector("body[data-ready=true]", { timeout: 20000 });
  for (const name of names) {
    const t0 = Date.now();
    await p.setViewportSize(desktop);
    await p.evaluate((n) => { location.hash = "#scene=" + n; }, name);
    await lesson(p, name);
    await idle(p);
    await axe(p, name);
    // Its own name and words, not a generic label.
    const title = await p.textContent("#lesson-title");
    assert.ok((await p.getAttribute("#figure", "aria-label")).includes(title), `${name}: the figure's name leaves out “${title}”`);
    assert.ok((await p.textContent("#figure-desc")).length > 40, `${name}: the figure is not described`);
    const step = await p.$("#ctl-step"); // lessons without a stepper have none
    if (step && await step.isEnabled()) {
      await p.click("#ctl-step");
      await idle(p);
      await axe(p, name + " after a step");
    }
    // A wide screen shows the figure and "What to try" together, without
    // scrolling; a phone's menu leaves the screen to the lesson.
    await p.setViewportSize(wide);
    await p.waitForSelector(`#prose[data-lesson="${name}"]`);
    assert.deepEqual(await firstView(p), { figure: true, whatToTry: true, firstControl: true }, `${name} at 1440×900`);
    await p.setViewportSize(phone);
    await axe(p, name + " on a phone");
    const header = await p.$eval("header.top", (h) => h.getBoundingClientRect().height);
    assert.ok(header <= 120, `${name}: the phone's header is ${header} px tall (at most 120)`);
    console.log(`# ${name}: ${Date.now() - t0} ms`);
  }
  assert.deepEqual(errors, []);
  await p.close();
});

test("axe-core finds nothing on the errata page and in the exercise mode", async () => {
  const errata = await page("errata.html");
  await axe(errata.p, "the errata page");
  await errata.p.setViewportSize(phone);
  await axe(errata.p, "the errata page on a phone");
  await errata.p.close();

  const { p, errors } = await page("");
  await p.waitForSelector("body[data-ready=true]", { timeout: 20000 });
  await p.click("#exercises-open");
  await p.waitForSelector("#ex-dialog[open] #ex-items li a", { timeout: 20000 });
  await axe(p, "the exercise dialog");
  await p.setViewportSize(phone);
  await axe(p, "the exercise dialog on a phone");
  await p.setViewportSize(desktop);
  // Choosing an exercise hands the focus to its question.
  const question = await p.textContent("#ex-dialog #ex-items li:nth-child(2) a");
  await p.click("#ex-dialog #ex-items li:nth-child(2) a");
  await p.waitForFunction(() => document.activeElement?.id === "ex-question", null, { timeout: 10000 });
  assert.ok((await p.textContent("#ex-question")).startsWith(question.replace(/…$/, "")));
  await idle(p);
  await axe(p, "an open exercise");
  await p.setViewportSize(phone);
  await axe(p, "an open exercise on a phone");
  assert.deepEqual(errors, []);
  await p.close();
});

// keyboard opens a lesson and reaches its figure by the skip link, the
// keyboard's way in.
async function keyboard(hash) {
  const { p, errors } = await page(hash);
  await p.waitForSelector("body[data-ready=true]", { timeout: 20000 });
  await p.keyboard.press("Tab");
  assert.equal(await p.evaluate(() => document.activeElement.className), "skip", "the first Tab does not reach the skip link");
  await p.keyboard.press("Enter");
  assert.equal(await p.evaluate(() => document.activeElement.id), "figure", "the skip link does not focus the figure");
  assert.equal(new URL(p.url()).hash.includes("figure"), false, "the skip link wrote into the link's state");
  return { p, errors };
}

// says waits until the figure's description holds text.
const says = (p, text) => p.waitForFunction((t) => document.getElementById("figure-desc").textContent.includes(t), text, { timeout: 10000 });

const readouts = (p) => p.$$eval("#readouts dd", (dds) => dds.map((d) => d.dataset.name + ": " + d.textContent));

// move picks up the chosen item, moves it three large steps right and one
// up, and drops it, checking by the description that the item it names is
// held and is the one that moved (names say where an item is).
async function move(p, hash) {
  const desc = () => p.textContent("#figure-desc");
  await p.keyboard.press("Enter");
  await says(p, "Holding");
  const held = (await desc()).match(/Holding (.*?): arrows/)[1];
  for (const k of ["Shift+ArrowRight", "Shift+ArrowRight", "Shift+ArrowRight", "Shift+ArrowUp"]) await p.keyboard.press(k);
  await p.keyboard.press("Enter");
  await idle(p);
  await says(p, "Chosen:");
  const dropped = (await desc()).match(/Chosen: (.*?) \(Enter/)[1];
  const who = (name) => name.split(" ").slice(0, 2).join(" "); // "user 20's", "user 1"
  assert.equal(who(dropped), who(held), `${hash}: held ${held}, then ${dropped} is chosen`);
  assert.notEqual(dropped, held, `${hash}: the item named did not move (${held})`);
}

test("On a phone the lesson menu is a drawer: opened, used and closed by keyboard, closed by a choice or a wider window", async () => {
  const { p, errors } = await page("#scene=dp-sgd", { viewport: phone, isMobile: true, hasTouch: true });
  await p.waitForSelector("body[data-ready=true]", { timeout: 20000 });
  await p.waitForSelector("#prose[data-lesson=dp-sgd]");
  assert.equal(await p.isVisible("#lessons"), false, "the menu starts closed");
  assert.equal(await p.textContent("#lessons-toggle"), "Lessons: 6. User-level DP-SGD");
  const focused = () => p.evaluate(() => document.activeElement.id || document.activeElement.textContent);
  // Opened and closed again from its button.
  await p.focus("#lessons-toggle");
  await p.keyboard.press("Enter");
  assert.equal(await p.getAttribute("#lessons-toggle", "aria-expanded"), "true");
  assert.equal(await p.isVisible('#lessons a[data-scene="calibration"]'), true);
  await axe(p, "the phone's open menu");
  await p.keyboard.press("Escape");
  assert.equal(await p.isVisible("#lessons"), false, "Escape on the button closes the menu");
  // From within the menu: Escape gives the focus back to the button.
  await p.keyboard.press("Enter");
  await p.keyboard.press("Tab");
  assert.equal(await focused(), "1. Why user-level?");
  await p.keyboard.press("Escape");
  assert.equal(await p.isVisible("#lessons"), false, "Escape in the menu closes it");
  assert.equal(await focused(), "lessons-toggle", "and gives the focus back to its button");
  // A lesson chosen by keyboard: the menu closes, the focus stays on its button.
  await p.keyboard.press("Enter");
  await p.keyboard.press("Tab");
  await p.keyboard.press("Tab");
  await p.keyboard.press("Enter");
  await lesson(p, "calibration");
  assert.equal(await p.isVisible("#lessons"), false, "a choice closes the menu");
  assert.equal(await focused(), "lessons-toggle");
  assert.equal(await p.textContent("#lessons-toggle"), "Lessons: 2. Noise calibration");
  // Opened, then the window widened and narrowed again: closed.
  await p.click("#lessons-toggle");
  await p.setViewportSize(wide);
  assert.equal(await p.isVisible("#lessons-toggle"), false, "wide screens show the whole menu, no button");
  assert.equal(await p.isVisible('#lessons a[data-scene="dp-sgd"]'), true);
  await p.setViewportSize(phone);
  await p.waitForFunction(() => document.querySelector("#lessons-toggle").getAttribute("aria-expanded") === "false");
  assert.equal(await p.isVisible("#lessons"), false, "the drawer stays closed after a wider window");
  assert.deepEqual(errors, []);
  await p.close();
});

test("Keyboard alone: a user moved in lessons 1, 5 and 10 changes the readouts", async () => {
  for (const [hash, first, choose] of [
    ["#scene=user-level", [], "ArrowUp"], // the last item: user 20's mean
    ["#scene=outlier-removal", ["End"], "ArrowDown"], // user 1, the ramp shown
    ["#scene=outlier-iterates", ["End"], "ArrowDown"], // user 1's first item
  ]) {
    const { p, errors } = await keyboard(hash);
    for (const k of first) await p.keyboard.press(k);
    await idle(p);
    const before = await readouts(p);
    await p.keyboard.press(choose);
    await says(p, "Chosen:");
    await move(p, hash);
    assert.notDeepEqual(await readouts(p), before, `${hash}: moving the chosen item by keyboard changed no readout`);
    assert.equal(await p.evaluate(() => document.activeElement.id), "figure", `${hash}: the figure lost the focus`);
    // Held, then the focus leaves the figure: the item is let go there.
    await p.keyboard.press("Enter");
    await says(p, "Holding");
    await p.keyboard.press("Tab");
    await says(p, "Chosen:");
    assert.deepEqual(errors, []);
    await p.close();
  }
});

test("The figure's words are spoken when things settle, never frame by frame while a run plays", async () => {
  const { p, errors } = await page("#scene=dp-sgd");
  await p.waitForSelector("body[data-ready=true]", { timeout: 20000 });
  await idle(p);
  for (const id of ["status", "guarantee"]) assert.equal(await p.getAttribute("#" + id, "aria-live"), null, `#${id} is a live region`);
  assert.equal(await p.getAttribute("#announce", "aria-live"), "polite");
  // A step is spoken: the status line's step is in the live region.
  await p.locator("#figure").focus();
  await p.keyboard.press("ArrowRight");
  await p.waitForFunction(() => document.getElementById("announce").textContent.startsWith("step 1 of"), null, { timeout: 10000 });
  assert.match(await p.textContent("#figure-desc"), /users of \d+ items/);
  // Playing: the live region is written once at most (the press), however
  // many steps show.
  await p.evaluate(() => {
    window.announced = 0;
    new MutationObserver(() => window.announced++).observe(document.getElementById("announce"), { childList: true, characterData: true, subtree: true });
  });
  await p.fill('input[aria-label="speed value"]', "20");
  await p.press('input[aria-label="speed value"]', "Enter");
  await p.locator("#figure").focus();
  await p.keyboard.press(" ");
  await p.waitForFunction(() => /^step ([5-9]|\d{2,}) of/.test(document.getElementById("status").textContent), null, { timeout: 30000 });
  const start = Number((await status(p)).match(/^step (\d+)/)[1]);
  await p.waitForFunction((s) => Number(document.getElementById("status").textContent.match(/^step (\d+)/)[1]) >= s + 20, start, { timeout: 60000 });
  assert.ok(await p.evaluate(() => window.announced) <= 1, `the live region was written ${await p.evaluate(() => window.announced)} times during 20 steps of play`);
  // Pausing speaks where the run stopped.
  await p.keyboard.press(" ");
  await p.waitForFunction(() => {
    const s = document.getElementById("status").textContent;
    return window.announced >= 1 && document.getElementById("announce").textContent.startsWith(s.slice(0, 12));
  }, null, { timeout: 10000 });
  assert.deepEqual(errors, []);
  await p.close();
});

test("With reduced motion, playback goes a step a second at most", async () => {
  const { p, errors } = await page("#scene=abovethreshold", { reducedMotion: "reduce" });
  await p.waitForSelector("body[data-ready=true]", { timeout: 20000 });
  await p.fill('input[aria-label="speed value"]', "50");
  await p.press('input[aria-label="speed value"]', "Enter");
  await p.locator("#figure").focus();
  const t0 = Date.now();
  await p.keyboard.press(" ");
  await p.waitForFunction(() => /^step 2 of/.test(document.getElementById("status").textContent), null, { timeout: 30000 });
  // At 50 steps a second step 2 would show after 40 ms; capped at one a
  // second it cannot show before 2 s (less a frame's clamp): a bound the
  // page can only exceed, never undercut, however busy the machine.
  const ms = Date.now() - t0;
  assert.ok(ms >= 1500, `step 2 showed ${ms} ms after play at 50 steps/s under reduced motion`);
  assert.match(await readout(p, "halted"), /passed|⊥/);
  assert.deepEqual(errors, []);
  await p.close();
});
