// scratch: node zz_shots.mjs name hash WxH [End]...
import { spawn } from "node:child_process";
import { once } from "node:events";
import { chromium } from "playwright-core";
const root = new URL("../../", import.meta.url).pathname;
const server = spawn(root + "bin/uldp", ["serve", "--addr", "127.0.0.1:0"], { stdio: ["ignore", "pipe", "inherit"] });
const [line] = await once(server.stdout, "data");
const base = String(line).match(/http:\/\/\S+\//)[0];
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu"] });
const jobs = JSON.parse(process.argv[2]);
for (const [name, hash, w, h, keys, full] of jobs) {
  const page = await browser.newPage({ viewport: { width: w, height: h } });
  page.on("console", (m) => { if (m.type() === "error") console.log(name, "console:", m.text()); });
  await page.goto(base + hash);
  await page.waitForSelector("body[data-ready=true]", { timeout: 20000 });
  await page.waitForTimeout(300);
  for (const k of keys || []) { await page.keyboard.press(k); await page.waitForTimeout(100); }
  await page.waitForFunction(() => !document.querySelector('#readouts dd[data-name="computing"]'), null, { timeout: 60000 });
  await page.waitForTimeout(200);
  if (full) await page.screenshot({ path: `/tmp/shots/${name}.png`, fullPage: true });
  else await (await page.$("canvas")).screenshot({ path: `/tmp/shots/${name}.png` });
  await page.close();
}
await browser.close();
server.kill();
