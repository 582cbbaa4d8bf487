// Practice without a server: the site written out as plain files (as a
// static host serves it, by the Worker's own asset writer) and served by
// a file server that knows no API, so exercise mode offers practice and
// grades in the browser, in the practice grader's Web Worker.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createServer } from "node:http";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { extname, join, normalize } from "node:path";
import { once } from "node:events";
import { root, shots, launch, lesson, axe } from "./harness.mjs";

let dir, server, base, browser;

const types = { ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".css": "text/css", ".json": "application/json", ".wasm": "application/wasm" };

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "uldp-static-"));
  execFileSync("go", ["run", "./cmd/worker/assets", "-out", dir], { cwd: root, stdio: ["ignore", "ignore", "inherit"], timeout: 300000 });
  // A plain file server: GET a file or 404 in HTML; anything else 501,
  // as the simplest static hosts answer (no JSON anywhere).
  server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname)).replace(/^(\.\.[/\\])+/, "");
    const file = join(dir, path.endsWith("/") ? path + "index.html" : path);
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(501, { "Content-Type": "text/html" }).end("<h1>Unsupported method</h1>");
      return;
    }
    try {
      if (!file.startsWith(dir) || !statSync(file).isFile()) throw new Error("not a file");
      res.writeHead(200, { "Content-Type": types[extname(file)] || "application/octet-stream" }).end(readFileSync(file));
    } catch {
      res.writeHead(404, { "Content-Type": "text/html" }).end("<h1>Not found</h1>");
    }
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  base = `http://127.0.0.1:${server.address().port}/`;
  browser = await launch();
});

after(async () => {
  await browser?.close();
  server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("Exercises without a server: practice is offered, grades right and wrong in the browser, says so, and survives a reload", async () => {
  const key = JSON.parse(execFileSync(root + "bin/uldp", ["exercises", "solve", "--pack", "builtin", "--student", "Ada Lovelace"])).answers;
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
  const errors = [];
  page.on("console", (m) => { if (m.type() === "error" && !/status of 40[45]|status of 501/.test(m.text())) errors.push(m.text()); });
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(base);
  await page.waitForSelector("body[data-ready=true]", { timeout: 20000 });
  // No server: the dialog offers practice, and says what it is.
  await page.click("#exercises-open");
  await page.waitForSelector("#ex-dialog[open] #ex-offline:not([hidden])");
  assert.match(await page.textContent("#ex-offline"), /No ULDP Lab server answers this page/);
  assert.ok(await page.isHidden("#ex-items"), "the list shows before practice was chosen");
  await axe(page, "the offer to practise");
  await page.screenshot({ path: shots + "practice-offer.png" });
  // Typing the name asks nothing of the absent server (practice brings
  // the sheet), so no banner says the exercises could not load.
  await page.fill("#ex-student", "Ada Lovelace");
  await page.click("#ex-practise");
  await page.waitForSelector("#ex-dialog[open] .ex-items li", { timeout: 120000 });
  assert.ok(await page.isHidden("#banner"), await page.textContent("#banner"));
  assert.equal(await page.$$eval(".ex-items li", (l) => l.length), Object.keys(key).length);
  assert.match(await page.textContent("#ex-summary"), /^Practice, graded in this browser and not for marks/);
  assert.ok(await page.isHidden("#ex-offline"));
  // Right, on Ada's own numbers: graded by the lesson in the worker.
  await page.click(".ex-items li:first-child a");
  await page.waitForSelector("#exercise:not([hidden])");
  assert.ok(await page.isVisible("#ex-practice-note"), "the bar does not say it is practice");
  await page.fill("#ex-number", String(key["user-level-sensitivity"]));
  await page.click("#ex-answer button[type=submit]");
  await page.waitForSelector("#ex-feedback.right:not([hidden])", { timeout: 60000 });
  assert.match(await page.textContent("#ex-feedback"), /^Practice grading: Right/);
  // Wrong: the next exercise, a choice that is not the key.
  await page.click("#ex-next");
  await page.waitForFunction(() => /Exercise 2 of/.test(document.querySelector("#ex-title").textContent));
  await page.check(`input[name=ex-choice][value="${(key["user-level-ratio"] + 1) % 4}"]`);
  await page.click("#ex-answer button[type=submit]");
  await page.waitForSelector("#ex-feedback.wrong:not([hidden])", { timeout: 60000 });
  assert.match(await page.textContent("#ex-feedback"), /^Practice grading: Not quite/);
  const total = Object.keys(key).length;
  assert.equal(await page.textContent("#ex-score"), `score 1 of ${total} (2 answered)`);
  await axe(page, "a practice grading");
  await page.screenshot({ path: shots + "practice-graded.png" });
  // A reload practises on without asking again, and keeps the gradings.
  await page.reload();
  await page.waitForSelector("#exercise:not([hidden])", { timeout: 60000 });
  assert.ok(await page.isVisible("#ex-practice-note"));
  assert.equal(await page.textContent("#ex-score"), `score 1 of ${total} (2 answered)`);
  await lesson(page, "user-level");
  assert.deepEqual(errors, []);
  await page.close();
});

test("A practice grader that cannot load: the offer says why, and stays on offer after a reload until the grader loads", async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  let broken = true;
  await page.route(/\/engine\/practice\./, (r) => broken ? r.fulfill({ status: 404, contentType: "text/html", body: "<h1>Not found</h1>" }) : r.continue());
  const failed = () => page.waitForFunction(() => /^Practice could not start: engine\/practice\.[0-9a-f]+\.wasm: 404/.test(document.querySelector("#ex-practise-status").textContent), null, { timeout: 60000 });
  const practising = async () => {
    await page.click("#ex-practise");
    await page.waitForSelector("#ex-dialog[open] .ex-items li", { timeout: 120000 });
  };
  await page.goto(base);
  await page.waitForSelector("body[data-ready=true]", { timeout: 20000 });
  await page.click("#exercises-open");
  await page.click("#ex-practise");
  await failed();
  assert.ok(await page.isVisible("#ex-offline"));
  assert.equal(await page.evaluate(() => document.activeElement.id), "ex-practise", "the focus is lost");
  broken = false;
  await practising();
  // Chosen, then failing on a later visit: the dialog still opens, on the
  // offer and its reason, and practice resumes once the grader loads.
  broken = true;
  await page.reload();
  await page.waitForSelector("body[data-ready=true]", { timeout: 20000 });
  await page.click("#exercises-open");
  await page.waitForSelector("#ex-dialog[open] #ex-offline:not([hidden])", { timeout: 60000 });
  await failed();
  broken = false;
  await practising();
  assert.ok(await page.isHidden("#banner"), await page.textContent("#banner"));
  await page.close();
});
