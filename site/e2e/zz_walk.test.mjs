import { test } from "node:test";
import { serve, base, browser, idle } from "./harness.mjs";
serve();
const views = [[1440, 900], [390, 844]];
const shots = [
  ["dpsgd-local-open", "#scene=dp-sgd&algo=localised", 0],
  ["dpsgd-local-step", "#scene=dp-sgd&algo=localised", 3],
  ["dpsgd-local-end", "#scene=dp-sgd&algo=localised", -1],
  ["dpsgd-local-1000-end", "#scene=dp-sgd&algo=localised&n=1000&m=50", -1],
  ["dpsgd-local-1000-mid", "#scene=dp-sgd&algo=localised&n=1000&m=50", 250],
  ["lab-sc", "#scene=audit&mech=dp-sgd-sc&pair=two-crowds&mutant=no-gate", 0],
];
for (const [w, h] of views) for (const [name, hash, steps] of shots) test(`${name} ${w}`, async () => {
  const p = await browser.newPage({ viewport: { width: w, height: h } });
  const errors = [];
  p.on("pageerror", (e) => errors.push(String(e)));
  await p.goto(base + hash);
  await p.waitForSelector("body[data-ready=true]", { timeout: 30000 });
  await idle(p);
  await p.locator("#figure").focus();
  if (steps < 0) await p.keyboard.press("End");
  for (let i = 0; i < steps; i++) await p.keyboard.press("ArrowRight");
  if (name === "lab-sc") { await p.keyboard.press("m"); await p.waitForTimeout(6000); }
  await p.waitForTimeout(400);
  await p.screenshot({ path: `/tmp/walk/${name}-${w}.png` });
  if (w === 1440) {
    const fig = await p.locator("#figure").boundingBox();
    await p.screenshot({ path: `/tmp/walk/${name}-${w}-fig.png`, clip: fig });
  }
  console.log(name, w, errors);
  await p.close();
});
