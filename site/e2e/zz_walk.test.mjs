import { test } from "node:test";
import { serve, base, browser, idle } from "./harness.mjs";
serve();
const shots = [
  ["l10", "#scene=outlier-iterates", -1],
  ["l11", "#scene=rates", 0],
  ["l2", "#scene=calibration", 0],
];
for (const [name, hash, steps] of shots) test(name, async () => {
  const p = await browser.newPage({ viewport: { width: 390, height: 844 } });
  await p.goto(base + hash);
  await p.waitForSelector("body[data-ready=true]", { timeout: 30000 });
  await idle(p);
  await p.locator("#figure").focus();
  if (steps < 0) await p.keyboard.press("End");
  await p.waitForTimeout(500);
  const fig = await p.locator("#figure").boundingBox();
  await p.screenshot({ path: `/tmp/walk/${name}-390-fig.png`, clip: fig });
  await p.close();
});
