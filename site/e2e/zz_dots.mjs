import { chromium } from "playwright-core";
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu"] });
const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
await page.setContent(`<canvas id=c width=900 height=700></canvas>`);
const res = await page.evaluate(() => {
  const c = document.getElementById("c"), ctx = c.getContext("2d");
  const G = 2000, M = 20, r = 1.6;
  const xs = new Float32Array(G * M), ys = new Float32Array(G * M);
  for (let i = 0; i < G * M; i++) { xs[i] = 450 + 200 * (Math.random() - 0.5) * 2; ys[i] = 350 + 200 * (Math.random() - 0.5) * 2; }
  const cols = ["rgba(0,114,178,0.5)", "rgba(230,159,0,0.5)"];
  const methods = {
    arcPerGroup() { for (let g = 0; g < G; g++) { ctx.fillStyle = cols[g % 2]; ctx.beginPath(); for (let k = g * M; k < (g + 1) * M; k++) { ctx.moveTo(xs[k] + r, ys[k]); ctx.arc(xs[k], ys[k], r, 0, 2 * Math.PI); } ctx.fill(); } },
    arcPerColour() { for (let cc = 0; cc < 2; cc++) { ctx.fillStyle = cols[cc]; ctx.beginPath(); for (let g = cc; g < G; g += 2) for (let k = g * M; k < (g + 1) * M; k++) { ctx.moveTo(xs[k] + r, ys[k]); ctx.arc(xs[k], ys[k], r, 0, 2 * Math.PI); } ctx.fill(); } },
    rectPerGroup() { for (let g = 0; g < G; g++) { ctx.fillStyle = cols[g % 2]; ctx.beginPath(); for (let k = g * M; k < (g + 1) * M; k++) ctx.rect(xs[k] - r, ys[k] - r, 2 * r, 2 * r); ctx.fill(); } },
    pixels() {
      const W = 900, H = 700;
      if (!window.img) { window.img = ctx.createImageData(W, H); window.u32 = new Uint32Array(img.data.buffer); window.lay = document.createElement("canvas"); lay.width = W; lay.height = H; window.lctx = lay.getContext("2d"); }
      u32.fill(0);
      const px = [0xb2720080 >>> 0, 0x009fe680 >>> 0].map(v => ((v & 0xff) << 24) | ((v >>> 8 & 0xff) << 16) | ((v >>> 16 & 0xff) << 8) | (v >>> 24));
      for (let g = 0; g < G; g++) { const p = px[g % 2]; for (let k = g * M; k < (g + 1) * M; k++) { const x0 = Math.round(xs[k] - r), y0 = Math.round(ys[k] - r), d = Math.round(2 * r); for (let y = y0; y < y0 + d; y++) { let o = y * W + x0; for (let x = 0; x < d; x++) u32[o++] = p; } } }
      lctx.putImageData(img, 0, 0); ctx.drawImage(lay, 0, 0);
    },
    sprite() {
      if (!window.spr) { window.spr = cols.map((col) => { const o = document.createElement("canvas"); o.width = o.height = Math.ceil(2 * r + 2); const x = o.getContext("2d"); x.fillStyle = col; x.beginPath(); x.arc(o.width / 2, o.height / 2, r, 0, 2 * Math.PI); x.fill(); return o; }); }
      const h = spr[0].width / 2;
      for (let g = 0; g < G; g++) { const s = spr[g % 2]; for (let k = g * M; k < (g + 1) * M; k++) ctx.drawImage(s, xs[k] - h, ys[k] - h); }
    },
    spriteRound() {
      const h = spr[0].width / 2;
      for (let g = 0; g < G; g++) { const s = spr[g % 2]; for (let k = g * M; k < (g + 1) * M; k++) ctx.drawImage(s, Math.round(xs[k] - h), Math.round(ys[k] - h)); }
    },
  };
  const out = {};
  for (const [name, f] of Object.entries(methods)) {
    const t = [];
    for (let i = 0; i < 15; i++) { ctx.clearRect(0, 0, 900, 700); const t0 = performance.now(); f(); const t1 = performance.now(); ctx.getImageData(0, 0, 1, 1); t.push([t1 - t0, performance.now() - t0]); }
    const a = t.map(x => x[0]).sort((a, b) => a - b), b = t.map(x => x[1]).sort((a, b) => a - b);
    out[name] = `record median ${a[7].toFixed(1)} max ${a[14].toFixed(1)}; with raster median ${b[7].toFixed(1)} max ${b[14].toFixed(1)}`;
  }
  return out;
});
console.log(res);
await browser.close();
