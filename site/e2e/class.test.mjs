// A class as its students and teacher meet it in the browser: the server
// keeps the answers (uldp serve --class-db), so they follow the student
// to another device, and the teacher's dashboard counts them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve, base, browser, shots, axe } from "./harness.mjs";

serve(["--class-db", join(mkdtempSync(join(tmpdir(), "uldp-class-")), "class.db")]);

// createClass makes a class through the API, as the dashboard page does.
async function createClass(title) {
  const res = await fetch(base + "api/class", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ title, pack: "builtin" }) });
  assert.equal(res.status, 201, await res.clone().text());
  return res.json();
}

// device is a browser profile of its own (its own cookies and storage),
// on the site, with the exercise list open.
async function device() {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true }); // for axe
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  // The browser logs the API's refusals the test asks for (a wrong code,
  // a key not yet given) as errors: those are expected.
  page.on("console", (m) => { if (m.type() === "error" && !/status of 40[149]/.test(m.text())) errors.push(m.text()); });
  await page.goto(base);
  await page.waitForSelector("body[data-ready=true]", { timeout: 20000 });
  await page.click("#exercises-open");
  await page.waitForSelector("#ex-dialog[open]");
  return { context, page, errors };
}

test("A student joins a class, answers, and finds the answer kept on another device; the teacher's gradebook counts it", async () => {
  const cls = await createClass("DP 101, autumn");
  const { context, page, errors } = await device();
  assert.ok(await page.isVisible("#ex-class-out"), "no way to join a class");
  await axe(page, "the exercise list with its class box");
  // A wrong code says so, and nothing changes.
  await page.fill("#ex-code", "AAAA-AAAA");
  await page.fill("#ex-join-name", "Ada");
  await page.click("#ex-join button[type=submit]");
  await page.waitForFunction(() => /Could not join: no class has the code/.test(document.querySelector("#ex-class-msg").textContent));
  // The right one, typed in lower case.
  await page.fill("#ex-code", cls.code.toLowerCase());
  await page.click("#ex-join button[type=submit]");
  await page.waitForSelector("#ex-class-in:not([hidden])");
  assert.match(await page.textContent("#ex-class-status"), /You are in the class “DP 101, autumn”.* as Ada/);
  assert.match(await page.textContent("#ex-summary"), /^Class “DP 101, autumn”: your answers are kept by the class server/);
  assert.equal(await page.inputValue("#ex-student"), "Ada");
  assert.ok(await page.$eval("#ex-student", (e) => e.readOnly), "the name can be changed in a class");
  const key = (await page.textContent("#ex-key-show")).trim();
  assert.match(key, /^u1\./);
  await axe(page, "the exercise list in a class");
  await page.screenshot({ path: shots + "class-joined.png" });
  // The second exercise is a choice: answer it.
  await page.click(".ex-items li:nth-child(2) a");
  await page.waitForSelector("#exercise:not([hidden])");
  await page.check("input[name=ex-choice][value='1']");
  await page.click("#ex-answer button[type=submit]");
  await page.waitForSelector("#ex-feedback.right:not([hidden])", { timeout: 30000 });
  assert.match(await page.textContent("#ex-feedback"), /^Right: “it is m times larger”/);
  assert.match(await page.textContent("#ex-score"), /score 1 of \d+ \(1 answered\)/);
  // Another device, with the key: the answer is there.
  const other = await device();
  await other.page.click(".ex-resume-box summary");
  await other.page.fill("#ex-key", key);
  await other.page.click("#ex-resume button[type=submit]");
  await other.page.waitForSelector("#ex-class-in:not([hidden])");
  assert.match(await other.page.textContent("#ex-summary"), /1 right of \d+ \(1 answered\)/);
  assert.equal(await other.page.textContent(".ex-items li:nth-child(2) .mark .visually-hidden"), "right: ");
  // Cookies cleared (or another site's doing): the key kept on the device
  // brings the class back on the next visit.
  await other.context.clearCookies();
  await other.page.reload();
  await other.page.waitForSelector("body[data-ready=true]");
  await other.page.waitForFunction(() => /Exercises 1\//.test(document.querySelector("#exercises-open").textContent), null, { timeout: 20000 });
  // The teacher's gradebook has Ada's point.
  const res = await fetch(base + "api/class/gradebook", { headers: { Authorization: "Bearer " + cls.teacher } });
  const rows = (await res.text()).trim().split("\n");
  assert.equal(rows.length, 2);
  assert.match(rows[1], /^Ada,,0,1,/);
  // Leaving forgets the class on this device only.
  await page.click("#ex-list");
  await page.waitForSelector("#ex-dialog[open]");
  page.once("dialog", (d) => d.accept());
  await page.click("#ex-class-leave");
  await page.waitForSelector("#ex-class-out:not([hidden])");
  await other.page.reload();
  await other.page.waitForSelector("body[data-ready=true]");
  await other.page.waitForFunction(() => /Exercises 1\//.test(document.querySelector("#exercises-open").textContent), null, { timeout: 20000 });
  assert.deepEqual(errors, []);
  assert.deepEqual(other.errors, []);
  await context.close();
  await other.context.close();
});

test("The teacher's dashboard: creates a class, shows its answers as they come, refuses a wrong token, exports the gradebook", async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true, acceptDownloads: true });
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => { if (m.type() === "error" && !/status of 401/.test(m.text())) errors.push(m.text()); });
  await page.goto(base + "class.html");
  await axe(page, "the dashboard's first view");
  // A wrong token says so.
  await page.fill("#dash-token", "u1.nothing");
  await page.click("#dash-token-form button[type=submit]");
  await page.waitForSelector("#dash-error:not([hidden])");
  assert.match(await page.textContent("#dash-error"), /That token opens no class/);
  // Created here: the code and the token show once, and the view opens.
  await page.fill("#dash-new-title", "Seminar");
  await page.click("#dash-create-form button[type=submit]");
  await page.waitForSelector("#dash-view:not([hidden])");
  const code = (await page.textContent("#dash-created-code")).trim();
  assert.match(code, /^[A-Z0-9]{4}-[A-Z0-9]{4}$/);
  assert.match(await page.textContent("#dash-created-token"), /^u1\./);
  assert.equal(await page.textContent("#dash-code"), code);
  assert.match(await page.textContent("#dash-counts"), /^0 students joined · 0 answers/);
  // Two students answer the same choice, one wrongly, through the API.
  for (const [name, choice] of [["Ada", 1], ["Bob", 0]]) {
    const join = await fetch(base + "api/class/join", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ code, name }) });
    const cookie = join.headers.get("set-cookie").split(";")[0];
    const res = await fetch(base + "api/class/answer", { method: "POST", headers: { "Content-Type": "application/json", Cookie: cookie },
      body: JSON.stringify({ id: "user-level-ratio", answer: choice, request: "r1", spent: 30000 }) });
    assert.equal(res.status, 200, await res.clone().text());
  }
  await page.click("#dash-refresh");
  await page.waitForFunction(() => /^2 students joined · 2 answers/.test(document.querySelector("#dash-counts").textContent));
  const row = await page.$$eval("#dash-exercises tbody tr:nth-child(2) td", (tds) => tds.map((td) => td.textContent));
  assert.equal(row[2], "2 of 2 (100%)");
  assert.equal(row[3], "1 of 2 (50%)");
  assert.equal(row[4], "they are equal (1)");
  assert.equal(row[5], "30 s");
  assert.match(await page.textContent("#dash-updated"), /2 new answers/);
  await axe(page, "the dashboard with answers");
  await page.screenshot({ path: shots + "class-dashboard.png", fullPage: true });
  // The gradebook, as uldp grade --format csv writes it.
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#dash-export")]);
  assert.equal(download.suggestedFilename(), `uldp-gradebook-${code}.csv`);
  const { readFile } = await import("node:fs/promises");
  const rows = (await readFile(await download.path(), "utf8")).trim().split("\n");
  assert.match(rows[0], /^student,file,user-level-sensitivity,user-level-ratio,/);
  assert.deepEqual(rows.slice(1).map((r) => r.split(",").slice(0, 4).join(",")), ["Ada,,0,1", "Bob,,0,0"]);
  // A reload keeps the class open in this tab.
  await page.reload();
  await page.waitForSelector("#dash-view:not([hidden])");
  assert.deepEqual(errors, []);
  await context.close();
});
