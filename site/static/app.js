// ULDP Lab in the browser: loads the Go engine (uldp.wasm), paints its display
// lists on a canvas, renders the scene's declared controls as HTML inputs and
// forwards pointer and keyboard input. All lesson logic lives in Go; this file
// only draws and relays.
"use strict";

const $ = (id) => document.getElementById(id);
const canvas = $("figure");
const ctx = canvas.getContext("2d");
let palette = [];
let lastFrame = null; // last encoded frame, repainted on resize
// Timing figures, read by the browser tests: frame updates (Go's frame()),
// canvas draws, the longest whole frame (update and paint), and the longest
// single call into Go (maxGoMs: a tick, a frame, a panel sync, a setting,
// a key or a pointer event; the garbage collector's pauses land in these),
// and how many calls there were and how many outlasted a 60 Hz frame;
// maxGoWhat names the longest call, so a test that fails on it says which.
// The first call of each kind into a module just started is its warm-up:
// the browser compiles a module's code on its first run, and the Go heap
// grows. Those calls are also kept apart (firstGoMs: kind → ms), and
// maxWarmGoMs is the longest of the others, what a reader meets once the
// lesson runs.
let stats = { updates: 0, updateMs: 0, maxUpdateMs: 0, draws: 0, drawMs: 0, maxDrawMs: 0, maxFrameMs: 0, maxGoMs: 0, maxGoWhat: "", ticks: 0, tickMs: 0, maxTickMs: 0, maxPanelMs: 0, layerPaints: 0, goCalls: 0, goOverFrame: 0, firstGoMs: {}, maxWarmGoMs: 0, maxWarmGoWhat: "" };
// Every call into Go is timed on its own, under the bridge function's name
// (timeCalls); the first call of each counts as its warm-up, when the
// browser compiles the code it runs. maxPanelMs is the longest update of
// the panel (its calls into Go and the page's own work on the DOM).
const goCall = (t0, what) => {
  const ms = performance.now() - t0;
  if (ms > stats.maxGoMs) { stats.maxGoMs = ms; stats.maxGoWhat = what; }
  if (!(what in stats.firstGoMs)) stats.firstGoMs[what] = ms;
  else if (ms > stats.maxWarmGoMs) { stats.maxWarmGoMs = ms; stats.maxWarmGoWhat = what; }
  stats.goCalls++;
  if (ms > 1000 / 60) stats.goOverFrame++;
};
window.uldpStats = stats; // read by the browser tests and make bench-web

// timeCalls wraps each of a lesson's bridge functions to time its calls.
function timeCalls(u) {
  for (const [name, f] of Object.entries(u)) {
    if (typeof f !== "function") continue;
    u[name] = (...args) => {
      const t0 = performance.now();
      try {
        return f(...args);
      } finally {
        goCall(t0, name);
      }
    };
  }
}

// ---------------------------------------------------------------- loading
//
// Every lesson is its own engine module (lessons.json names them), so a page
// downloads only the lesson it shows. The next lesson's is fetched and
// compiled once the browser is idle, any other's when the pointer or the
// focus rests on its menu entry, none ahead when the reader saves data or
// the connection is slow;
// switching lessons starts the new module with the lesson's last state and
// ends the old one.

let menu = [];               // lessons.json's lessons (with their export engines), in menu order
let practiceEngine = null;   // lessons.json's practice grader (exercises.js loads it without a server)
let menuLoaded = null;       // Promise of the menu, set as the page starts
let current = "";            // the lesson the running engine shows
let currentModule = null;    // the running engine's entry: its lesson's, or a part's
let currentCompiled = null;  // its compiled module
const states = new Map();    // lesson → its last state, for coming back
const compiled = new Map();  // module path → Promise<WebAssembly.Module>
const compiledDone = new Set(); // module paths compiled
let switching = 0;           // the latest switch; older ones give way
let pendingSwitch = 0;       // the switch still loading its module, 0 for none

async function loadMenu() {
  const res = await fetch("lessons.json");
  if (!res.ok) throw new Error(`lessons.json: ${res.status} ${res.statusText} (run "make run" to build the lesson engines)`);
  const m = await res.json();
  menu = m.lessons;
  practiceEngine = m.practice || null;
}

// fetchModule reads a module with a progress bar.
async function fetchModule(entry) {
  const res = await fetch(entry.module);
  if (!res.ok) throw new Error(`${entry.module}: ${res.status} ${res.statusText} (run "make run" to rebuild the engines)`);
  const total = Number(res.headers.get("X-Decoded-Length")) || entry.bytes || 0;
  const reader = res.body.getReader();
  const chunks = [];
  let got = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    got += value.length;
    if (total) $("load-progress").value = got / total;
  }
  const bytes = new Uint8Array(got);
  let off = 0;
  for (const c of chunks) { bytes.set(c, off); off += c.length; }
  return bytes;
}

// compile returns the lesson's compiled module, downloading it with the
// progress bar unless it was fetched ahead (fetchAhead).
function compile(entry) {
  let p = compiled.get(entry.module);
  if (!p) {
    p = fetchModule(entry).then((b) => WebAssembly.compile(b));
    keep(entry.module, p);
  }
  return p;
}

// keep records a module's compilation under way, and once it is done
// marks the module ready; a failed one is forgotten, to be tried again.
function keep(module, p) {
  compiled.set(module, p);
  p.then(() => compiledDone.add(module), () => compiled.delete(module));
}

// frugal reports whether the reader asked to save data or the connection
// is slow (3G or slower): then no module is fetched before it is asked for.
function frugal() {
  const c = navigator.connection;
  return !!c && (c.saveData || ["slow-2g", "2g", "3g"].includes(c.effectiveType));
}

// fetchAhead downloads and compiles the module a lesson would start in (its
// part's, for a lesson last left in a part) before it is asked for, unless
// it is there already or frugal says not to; a failure is left for the
// switch to report.
function fetchAhead(entry) {
  const mod = moduleFor(entry, states.get(entry.name) || "");
  if (frugal() || compiled.has(mod.module)) return Promise.resolve();
  const p = WebAssembly.compileStreaming(fetch(mod.module));
  keep(mod.module, p);
  return p.then(() => {}, () => {});
}

// idle calls f once the browser is idle (soon, where it cannot say).
const idle = window.requestIdleCallback ? (f) => window.requestIdleCallback(f) : (f) => setTimeout(f, 200);

// quiet calls go once the reader reads: the page idle, the lesson
// computing nothing, and no setting, key or pointer for 2 s; it stops
// waiting once gone() says go is no longer wanted.
function quiet(go, gone) {
  idle(() => { if (!gone()) (uldp.busy() || performance.now() - lastAction < 2000 ? quiet(go, gone) : go()); });
}

// prefetchNext fetches the lesson after the one shown, once the browser
// is idle: the one a reader going through the lessons opens next. Only
// that one: a visitor who reads one lesson pays for two modules, not for
// all fourteen of the lessons and their parts (9.5 MiB with brotli).
// uldpPrefetched is the fetch's promise, for the tests.
function prefetchNext() {
  const next = menu[menu.findIndex((l) => l.name === current) + 1];
  window.uldpPrefetched = next ? new Promise((done) => idle(() => fetchAhead(next).then(done))) : Promise.resolve();
}

// aheadOnRest fetches a lesson's module when the pointer rests on its menu
// entry for a fifth of a second, or the focus for half a second: passing
// over the menu, or tabbing through it, fetches nothing.
function aheadOnRest(a, entry) {
  let timer = 0;
  const rest = (ms) => () => { clearTimeout(timer); timer = setTimeout(() => fetchAhead(entry), ms); };
  const leave = () => clearTimeout(timer);
  a.addEventListener("pointerenter", rest(200));
  a.addEventListener("focus", rest(500));
  a.addEventListener("pointerleave", leave);
  a.addEventListener("blur", leave);
}

const lessonOf = (state) => new URLSearchParams(state.replace(/^#/, "")).get("scene");

// moduleFor is the module of lesson entry that shows state: a part whose
// setting has the state's value (a lesson too large for one module is
// split by one setting, the audit lab's mechanism), or the lesson's own.
function moduleFor(entry, state) {
  const q = new URLSearchParams((state || "").replace(/^#/, ""));
  return (entry.parts || []).find((p) => p.values.includes(q.get(p.param))) || entry;
}

// start shows lesson name, restoring state (a link's hash or the lesson's
// last view). It returns when the lesson is interactive.
async function start(name, state) {
  const entry = menu.find((l) => l.name === name);
  if (!entry) {
    report(`There is no lesson "${name}": choose one of ${menu.map((l) => l.name).join(", ")}. Showing the first.`);
    return start(menu[0].name, "");
  }
  const mine = ++switching;
  pendingSwitch = mine;
  const mod = moduleFor(entry, state);
  const loading = $("loading");
  if (!compiledDone.has(mod.module)) {
    // A module fetched ahead and still on its way has no progress to show
    // here: the bar then runs without a value.
    if (compiled.has(mod.module)) $("load-progress").removeAttribute("value");
    else $("load-progress").value = 0;
    // Within a lesson, the part that shows a setting: say which.
    const part = mod !== entry && name === current ? new URLSearchParams((state || "").replace(/^#/, "")).get(mod.param) : "";
    loading.querySelector("p").textContent = part ? `Loading the part of “${entry.title}” that shows ${part}…` : `Loading the lesson “${entry.title}”…`;
    loading.hidden = false;
  }
  let instance;
  const go = new Go();
  // A module that exits with a Go timer pending would later resume a dead
  // program ("Go program has already exited"): wasm_exec.js does not clear
  // its timeouts on exit (golang/go#72797), so the page does.
  go.exit = () => {
    for (const t of go._scheduledTimeouts.values()) clearTimeout(t);
    go._scheduledTimeouts.clear();
  };
  let compiledModule;
  try {
    compiledModule = await compile(mod);
    if (mine !== switching) return; // the reader has moved on
    instance = await WebAssembly.instantiate(compiledModule, go.importObject);
  } catch (err) {
    if (mine !== switching) return;
    pendingSwitch = 0;
    loading.hidden = true;
    report(`The lesson “${entry.title}” could not load: ${err.message}`);
    return;
  }
  if (mine !== switching) return;
  pendingSwitch = 0;
  const old = window.uldp;
  if (old && current) states.set(current, old.state());
  stopComputing();
  const ready = new Promise((resolve) => { window.uldpReady = resolve; });
  go.run(instance);
  stats.memory = instance.exports.mem; // the module's memory, which make bench-web reports
  await ready;
  timeCalls(window.uldp);
  old?.exit();
  stats.firstGoMs = {};
  current = entry.name;
  currentModule = mod;
  currentCompiled = compiledModule;
  if (!palette.length) palette = readPalette(uldp.palette());
  loading.hidden = true;
  builtFor = ""; controls = []; lastFrame = null; described = "";
  uldp.reduceMotion(reducedMotion.matches);
  $("status").textContent = "";
  if (state && lessonOf(state) === name) call("restore", state);
  refresh(true, true);
  await syncLesson();
  document.body.dataset.lesson = name;
  document.dispatchEvent(new Event("uldp:lesson"));
  prefetchNext();
  rehearse(mod);
}

// rehearse has the rehearsal worker (rehearse.js) run a copy of a lesson's
// module, in the state the lesson opened with, while the reader reads
// (the page idle, the lesson computing nothing, no action for 2 s): the
// browser then compiles the code a reader reaches first (steps, the end, a
// drag, playback) on the worker's thread rather than in the middle of the
// reader's first press, the page's and the worker's copies sharing one
// compiled module. The lesson's own work
// comes first: a computation the reader starts stops the rehearsal, which
// starts again once the page is quiet (three tries at most). One rehearsal
// at a time, once per module: a lesson left before its rehearsal ends has
// it stopped, to be rehearsed when it is shown again. Not on a one-core
// device, where the worker would compete with the page. For the tests:
// uldpRehearsed is the latest rehearsal's answer (with its module),
// uldpRehearsals the number of workers started.
const rehearsed = new Set();
let rehearsal = null; // the rehearsal under way: {module, stop, yieldTo}
window.uldpRehearsals = 0;
function rehearse(mod) {
  if (rehearsal?.module === mod.module) return;
  rehearsal?.stop();
  if (rehearsed.has(mod.module) || (navigator.hardwareConcurrency || 1) < 2 || !window.Worker) return;
  rehearsed.add(mod.module);
  const state = uldp.state(), width = canvas.clientWidth, height = canvas.clientHeight, budgetMs = 2000;
  window.uldpRehearsed = new Promise((resolve) => {
    let worker = null, timer = 0, over = false, tries = 0;
    const done = (answer) => {
      if (over) return;
      over = true;
      clearTimeout(timer);
      worker?.terminate();
      if (rehearsal === me) rehearsal = null;
      if (answer.error) console.warn(`rehearsing ${mod.module}: ${answer.error}`);
      resolve({ module: mod.module, ...answer });
    };
    const stop = () => { rehearsed.delete(mod.module); done({ stopped: true }); };
    let launch = null;
    const me = {
      module: mod.module,
      stop,
      // yieldTo gives the cores back to the lesson's own computation.
      yieldTo: () => {
        if (!worker) return;
        worker.terminate();
        worker = null;
        clearTimeout(timer);
        if (tries < 3) quiet(launch, () => over);
        else stop();
      },
    };
    rehearsal = me;
    compiled.get(mod.module).then((module) => {
      launch = () => {
        tries++;
        try {
          worker = new Worker("rehearse.js");
        } catch (err) {
          done({ error: err.message });
          return;
        }
        window.uldpRehearsals++;
        worker.onmessage = (e) => done({ ...e.data, tries });
        worker.onerror = (e) => { e.preventDefault(); done({ error: e.message || "the worker failed" }); };
        worker.onmessageerror = () => done({ error: "the module could not be handed to the worker" });
        // A worker still silent long after its budget is stuck.
        timer = setTimeout(() => done({ error: "no answer in time" }), budgetMs + 15000);
        worker.postMessage({ module, state, width, height, budgetMs });
      };
      quiet(launch, () => over);
    }, (err) => done({ error: err.message }));
  });
}

// ---------------------------------------------------------------- computing elsewhere

// offload hands the lesson's computation under way, when it is one another
// copy of the lesson can do and a small one has had its frames to finish
// here (uldp.handOut names it then), to the compute
// worker (compute.js): the worker's copy, restored to the page's state,
// computes on another core, and the page's copy holds its own work and
// adopts what the worker sends, a tenth of a second at a time. A change
// of settings names a new computation, which replaces the one under way.
// Should the worker fail, or fall silent for 15 s, the page computes for
// itself, as it does without workers, and does not hand that module's work
// out again; a computation the worker's copy cannot restore (the settings
// are more precise than the link that carries them) is computed here, and
// the next one handed out again. uldpOffloads counts the computations
// handed out, uldpAdopted the outcomes adopted and uldpCancels the
// computations the worker was told to leave, for the tests.
let computer = null; // {worker, module, key: the one handed out, local: one computed here, timer}
const computesHere = new Set(); // modules whose worker failed
window.uldpOffloads = 0;
window.uldpAdopted = 0;
window.uldpCancels = 0;
function offload() {
  if (!uldp.handOut) return; // a module whose lesson computes nothing elsewhere
  if (computer?.key && computer.key !== uldp.remoteKey()) {
    // The settings moved on to a computation not (yet) handed out: the
    // worker leaves the one it computes at its next pause.
    computer.worker.postMessage({ cancel: true });
    computer.key = "";
    window.uldpCancels++;
  }
  const key = uldp.handOut();
  if (!key || computer?.key === key || computer?.local === key || !window.Worker || computesHere.has(currentModule.module)) return;
  if (!computer) {
    let worker;
    try {
      worker = new Worker("compute.js");
    } catch (err) {
      computesHere.add(currentModule.module);
      return;
    }
    computer = { worker, module: currentModule.module, key: "", local: "", timer: 0 };
    worker.onmessage = (e) => adoptOutcome(e.data);
    worker.onerror = (e) => { e.preventDefault(); computeHere(e.message || "the worker failed"); };
    worker.onmessageerror = () => computeHere("the worker's answer could not be read");
  }
  computer.key = key;
  computer.worker.postMessage({ module: currentCompiled, state: uldp.state(), key });
  watch();
  uldp.hold(key);
  window.uldpOffloads++;
  giveWay();
}

// watch gives the worker 15 s for its next answer: one killed by the
// browser (for memory, say) may say nothing at all.
function watch() {
  clearTimeout(computer.timer);
  computer.timer = setTimeout(() => computeHere("no answer for 15 s"), 15000);
}

// adoptOutcome shows what the compute worker found, if it is for the
// computation still under way. An answer that ends the worker's work on
// its key (done, or failed) ends the hand-out too, even when the settings
// have moved on meanwhile: should they come back to it, offload hands it
// out again rather than wait for an answer that has come and gone.
function adoptOutcome({ key, data, done, error, unrestorable }) {
  if (!computer || key !== computer.key) return; // a computation since replaced
  if (done || error) {
    clearTimeout(computer.timer);
    computer.key = "";
  } else watch();
  if (key !== uldp.remoteKey()) return;
  if (unrestorable) {
    console.warn(`computing in a worker: ${error}; computing this one on the page`);
    computer.local = key;
    uldp.hold("");
    return;
  }
  if (error) { computeHere(error); return; }
  const err = uldp.adopt(key, data, done);
  if (err) { computeHere(err); return; }
  window.uldpAdopted++;
  refresh();
}

// computeHere gives up the worker: the page's copy computes for itself.
function computeHere(why) {
  console.warn(`computing in a worker: ${why}; computing on the page instead`);
  if (computer) computesHere.add(computer.module);
  stopComputing();
  uldp.hold("");
}

// stopComputing ends the compute worker (the lesson is left, or it failed).
function stopComputing() {
  if (computer) clearTimeout(computer.timer);
  computer?.worker.terminate();
  computer = null;
}

// giveWay stops a rehearsal while the lesson computes (rehearse).
function giveWay() {
  if (rehearsal && uldp.busy()) rehearsal.yieldTo();
}

// acted marks a reader's action (a setting, a key, the pointer): a
// rehearsal waits for 2 s without one, and gives way to what it
// starts.
let lastAction = 0;
function acted() {
  lastAction = performance.now();
  giveWay();
}

// ---------------------------------------------------------------- messages

let bannerTimer = 0;
function report(msg) {
  if (!msg) return;
  const b = $("banner");
  b.textContent = msg;
  b.hidden = false;
  clearTimeout(bannerTimer);
  bannerTimer = setTimeout(() => { b.hidden = true; }, 9000);
}

// call runs a bridge function that returns "" or an error message — or
// {moveTo: state} when another module of the lesson shows the setting,
// which the page then starts with that state.
function call(fn, ...args) {
  return !callFor(fn, ...args);
}

// callFor is call that also returns the refusal it reported ("" if none),
// for a control to show beside itself.
function callFor(fn, ...args) {
  const err = uldp[fn](...args);
  acted();
  if (!err) clearRefusal();
  if (!err && pendingSwitch) {
    // A change the lesson shown took while another module was loading
    // (a mechanism of this module chosen after one of another): the
    // reader has moved on, and the switch gives way.
    switching++;
    pendingSwitch = 0;
    $("loading").hidden = true;
  }
  if (uldp.lastError) { report(uldp.lastError); uldp.lastError = ""; }
  if (err && typeof err === "object" && err.moveTo) {
    start(current, "#" + err.moveTo);
    return "";
  }
  if (err) report(err);
  return err || "";
}

// ---------------------------------------------------------------- panel buffers

// Wire reads the engine's typed panel buffers (viz.EncodeControls,
// EncodeReadouts, EncodeGuarantee, EncodePalette in Go; the Go tests hold
// the reference decoder). Every buffer starts with the layout version.
const PANEL_VERSION = 2;
class Wire {
  constructor(buf) {
    this.dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    this.buf = buf;
    this.off = 0;
    const v = this.u32();
    if (v !== PANEL_VERSION) throw new Error(`the lesson engine speaks panel version ${v}, this page ${PANEL_VERSION}: reload the page`);
  }
  u32() { const v = this.dv.getUint32(this.off, true); this.off += 4; return v; }
  f64() { const v = this.dv.getFloat64(this.off, true); this.off += 8; return v; }
  u8() { return this.dv.getUint8(this.off++); }
  bool() { return this.u8() !== 0; }
  str() { const n = this.u32(); const s = textDecoder.decode(this.buf.subarray(this.off, this.off + n)); this.off += n; return s; }
  list(item) { const n = this.u32(); const out = new Array(n); for (let i = 0; i < n; i++) out[i] = item(this); return out; }
}

const readControl = (w) => {
  const c = { name: w.str(), label: w.str(), kind: w.str(), value: w.str(), min: w.f64(), max: w.f64(), step: w.f64() };
  const flags = w.u8();
  c.log = (flags & 1) !== 0; c.disabled = (flags & 2) !== 0;
  c.unit = w.str(); c.choices = w.list((r) => r.str());
  c.help = w.str(); c.key = w.str(); c.group = w.str();
  return c;
};
const readReadout = (w) => ({ name: w.str(), label: w.str(), value: w.f64(), text: w.str(), formula: w.str(), warn: w.bool() });
function readGuarantee(buf) {
  const w = new Wire(buf);
  const priv = w.bool(), eps = w.f64(), delta = w.f64();
  const g = { eps: priv ? eps : null, delta: priv ? delta : null, mode: w.str(), certified: w.bool(), note: w.str() };
  g.preconditions = w.list((r) => ({ what: r.str(), have: r.f64(), op: r.str(), need: r.f64(), met: r.bool() }));
  g.level = w.str();
  return g;
}
function readPalette(buf) {
  const w = new Wire(buf);
  return w.list((r) => [r.u8(), r.u8(), r.u8()]);
}

// ---------------------------------------------------------------- painting

const KIND = { circle: 1, line: 2, polyline: 3, polygon: 4, rect: 5, arrow: 6, text: 7, dots: 8, layer: 9, layerEnd: 10 };
const ALIGN = ["left", "center", "right"];
const textDecoder = new TextDecoder();

function colour(i, alpha) {
  const c = palette[i] || [0, 0, 0];
  return `rgba(${c[0]},${c[1]},${c[2]},${alpha})`;
}

// Small dots in bulk (lesson 1 draws 40,000) and small ringed discs (its
// 2,000 user means) are rasterised here into one image per run of such
// items, with antialiased edges and source-over blending, then drawn at
// once. As canvas arcs the 40,000 dots took 54 ms to record and rasterise,
// this way about 6; the 2,000 ringed discs took 8.5 ms as arcs (a fill and a
// stroke each). Each disc stamps a precomputed coverage mask (its centre
// rounded to a quarter pixel) into premultiplied pixels, which the flush
// turns into the canvas's straight alpha. A ring is a disc in the stroke's
// colour under a smaller one in the fill's, which is what an opaque fill and
// stroke look like.
const SMALL_DOT = 4; // radius in device pixels
const SMALL_RING = 12; // outer radius in device pixels
const SUB = 4; // mask positions per pixel and axis
const dotLayer = {
  open: false, img: null, u32: null, sheets: [], used: 0, x0: 0, y0: 0, x1: 0, y1: 0, masks: new Map(),
  // masksFor returns, for discs of radius R drawn at alpha, the reach of
  // their masks in whole pixels and one mask per position of the centre in
  // its pixel ((qx + ½)/SUB, (qy + ½)/SUB) at index qy·SUB + qx: the covered
  // pixels as flat (dx, dy, weight), the weight alpha × coverage in 256ths.
  masksFor(R, alpha) {
    const key = Math.round(R * 256) * 1024 + Math.round(alpha * 1000);
    let set = this.masks.get(key);
    if (!set) {
      const reach = R + 0.5, span = Math.ceil(reach) + 1, masks = [];
      for (let qy = 0; qy < SUB; qy++) for (let qx = 0; qx < SUB; qx++) {
        const m = [], fx = (qx + 0.5) / SUB, fy = (qy + 0.5) / SUB;
        for (let dy = -span; dy <= span; dy++) for (let dx = -span; dx <= span; dx++) {
          const ex = dx + 0.5 - fx, ey = dy + 0.5 - fy, cover = reach - Math.sqrt(ex * ex + ey * ey);
          const w = Math.round(256 * alpha * Math.min(cover, 1));
          if (w > 0) m.push(dx, dy, w);
        }
        masks.push(Int32Array.from(m));
      }
      // Radii and alphas come from a few styles; a figure that animates
      // them would otherwise grow the cache without bound.
      if (this.masks.size > 64) this.masks.clear();
      set = { span, masks };
      this.masks.set(key, set);
    }
    return set;
  },
  // add stamps the np discs centred at (pts[at + 2k], pts[at + 2k + 1]).
  add(pts, at, np, R, dpr, [cr, cg, cb], alpha) {
    const W = canvas.width, H = canvas.height;
    if (!this.open) {
      if (!this.img || this.img.width !== W || this.img.height !== H) {
        this.img = new ImageData(W, H);
        this.u32 = new Uint32Array(this.img.data.buffer);
      }
      this.open = true; this.x0 = W; this.y0 = H; this.x1 = -1; this.y1 = -1;
    }
    // Pixels are premultiplied RGBA, little-endian in 32 bits; red and
    // blue, then green and alpha, blend as pairs of 16-bit lanes.
    const u32 = this.u32, { span, masks } = this.masksFor(R, alpha);
    const srb = cr | (cb << 16), sga = cg | (255 << 16);
    for (let k = 0; k < np; k++) {
      const cx = pts[at + 2 * k] * dpr, cy = pts[at + 2 * k + 1] * dpr, ix = Math.floor(cx), iy = Math.floor(cy);
      if (!(ix + span >= 0 && iy + span >= 0 && ix - span < W && iy - span < H)) continue; // off the canvas, or NaN
      const m = masks[Math.floor((cy - iy) * SUB) * SUB + Math.floor((cx - ix) * SUB)];
      const inside = ix - span >= 0 && iy - span >= 0 && ix + span < W && iy + span < H;
      this.x0 = Math.min(this.x0, Math.max(ix - span, 0)); this.x1 = Math.max(this.x1, Math.min(ix + span, W - 1));
      this.y0 = Math.min(this.y0, Math.max(iy - span, 0)); this.y1 = Math.max(this.y1, Math.min(iy + span, H - 1));
      for (let e = 0; e < m.length; e += 3) {
        const x = ix + m[e], y = iy + m[e + 1];
        if (!inside && (x < 0 || y < 0 || x >= W || y >= H)) continue;
        const w = m[e + 2], keep = 256 - w, j = y * W + x, d = u32[j];
        const rb = (((d & 0xff00ff) * keep + srb * w) >>> 8) & 0xff00ff;
        const ga = ((((d >>> 8) & 0xff00ff) * keep + sga * w) >>> 8) & 0xff00ff;
        u32[j] = rb | (ga << 8);
      }
    }
  },
  // sheet returns the canvas the frame's next run of dots goes through,
  // at least w × h. The figure holds a run's pixels until it is
  // rasterised, so a sheet written again in the same frame is copied
  // first: one figure-sized sheet for lesson 6's three runs a frame cost
  // some 18 ms of its frame (software raster; 1280 × 900). So each run of
  // a frame has its own sheet (the first four; more share them), as large
  // as the runs it has carried at its place in the frame.
  sheet(w, h) {
    const i = this.used++ % 4;
    const c = this.sheets[i] || (this.sheets[i] = document.createElement("canvas"));
    if (c.width < w || c.height < h) {
      c.width = Math.max(w, c.width);
      c.height = Math.max(h, c.height);
    }
    return c;
  },
  // flush draws the run onto g: the figure's canvas, or a layer's.
  flush(g) {
    if (!this.open) return;
    this.open = false;
    if (this.x0 > this.x1) return;
    // ImageData is straight alpha: divide the partly covered pixels out.
    const px = this.img.data, u32 = this.u32, W = this.img.width;
    for (let y = this.y0; y <= this.y1; y++) {
      for (let j = y * W + this.x0, end = y * W + this.x1; j <= end; j++) {
        const a = u32[j] >>> 24;
        if (a > 0 && a < 255) {
          const i = 4 * j, u = 255 / a;
          px[i] *= u; px[i + 1] *= u; px[i + 2] *= u;
        }
      }
    }
    const w = this.x1 - this.x0 + 1, h = this.y1 - this.y0 + 1;
    const c = this.sheet(w, h);
    c.getContext("2d").putImageData(this.img, -this.x0, -this.y0, this.x0, this.y0, w, h);
    g.save();
    g.setTransform(1, 0, 0, 1, 0, 0);
    g.globalAlpha = 1;
    g.drawImage(c, 0, 0, w, h, this.x0, this.y0, w, h);
    g.restore();
    // The next run starts from transparent pixels.
    for (let y = this.y0; y <= this.y1; y++) u32.fill(0, y * W + this.x0, y * W + this.x1 + 1);
  },
};

// layers are the pixels of the figure's layers (viz.List.Layer) by key:
// a layer whose key is the same as when it was painted is drawn as one
// image. Only the layers of the last frame are kept; the canvases of those
// it drops are spares for the next layers (a pan repaints its layer every
// frame, and a new canvas the figure's size each time is garbage).
const layers = new Map();
const spareLayers = [];

// paint draws one encoded frame (layout: viz.Encode in Go).
function paint(buf) {
  // A figure with no area (not laid out yet, or squeezed to nothing while
  // a phone turns) shows nothing, and a bitmap of zero size throws: skip
  // the paint. The next frame of a real size is a resize, which repaints.
  if (canvas.width === 0 || canvas.height === 0) return;
  const t0 = performance.now();
  // The items are read as one array of floats (the layout is
  // little-endian, as WebAssembly is): a DataView read per number cost the
  // first paint of 40,000 dots tens of milliseconds before the browser
  // optimised it.
  if (buf.byteOffset % 4) buf = buf.slice();
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const n = dv.getUint32(4, true);
  const floats = dv.getUint32(8, true);
  const fa = new Float32Array(buf.buffer, buf.byteOffset + 20, floats);
  const text = buf.subarray(20 + 4 * floats);
  const dpr = window.devicePixelRatio || 1;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  let off = 0;
  dotLayer.open = false;
  dotLayer.used = 0;
  // g is where items are drawn: the canvas, or a layer being recorded;
  // skipping is set while a cached layer's items go by.
  let g = ctx, layer = null, skipping = false;
  const seen = new Set();
  const blit = (img) => {
    ctx.save(); ctx.setTransform(1, 0, 0, 1, 0, 0); ctx.globalAlpha = 1;
    ctx.drawImage(img, 0, 0); ctx.restore();
  };
  for (let i = 0; i < n; i++) {
    const kind = fa[off], stroke = fa[off + 1], fill = fa[off + 2], alpha = fa[off + 3], width = fa[off + 4], dashed = fa[off + 5];
    const align = fa[off + 6], size = fa[off + 7]; // fa[off + 8], the id, is for Go's hit tests
    const r = fa[off + 9], tOff = fa[off + 10], tLen = fa[off + 11], np = fa[off + 12];
    // The item's points are fa[at], fa[at + 1], … as x, y pairs.
    const at = off + 13;
    off = at + 2 * np;
    // A cached layer's items go by unread: they can be 40,000 dots.
    if (skipping && kind !== KIND.layerEnd) continue;
    if (kind === KIND.layer) {
      dotLayer.flush(g);
      const key = textDecoder.decode(text.subarray(tOff, tOff + tLen));
      seen.add(key);
      const have = layers.get(key);
      if (have && have.width === canvas.width && have.height === canvas.height) {
        blit(have);
        skipping = true;
      } else {
        stats.layerPaints++;
        layersPainted++;
        layer = { key, canvas: spareLayers.pop() || document.createElement("canvas") };
        // Setting the size clears a spare, even at the same size.
        layer.canvas.width = canvas.width; layer.canvas.height = canvas.height;
        g = layer.canvas.getContext("2d");
        g.setTransform(dpr, 0, 0, dpr, 0, 0);
      }
      continue;
    }
    if (kind === KIND.layerEnd) {
      if (layer) {
        dotLayer.flush(g);
        layers.set(layer.key, layer.canvas);
        blit(layer.canvas);
        layer = null; g = ctx;
      }
      skipping = false;
      continue;
    }
    if (kind === KIND.dots && r * dpr <= SMALL_DOT) {
      dotLayer.add(fa, at, np, r * dpr, dpr, palette[fill] || [0, 0, 0], alpha);
      continue;
    }
    const w = width || 1;
    // Only filled discs: a ring alone is not a disc, and a translucent
    // stroke would show the fill under it.
    if (kind === KIND.circle && fill && !dashed && (r + w / 2) * dpr <= SMALL_RING && (alpha >= 1 || !stroke)) {
      if (stroke) dotLayer.add(fa, at, np, (r + w / 2) * dpr, dpr, palette[stroke] || [0, 0, 0], alpha);
      if (!stroke || r > w / 2) dotLayer.add(fa, at, np, (stroke ? r - w / 2 : r) * dpr, dpr, palette[fill], alpha);
      continue;
    }
    dotLayer.flush(g);
    const xs = new Array(np), ys = new Array(np);
    for (let k = 0; k < np; k++) { xs[k] = fa[at + 2 * k]; ys[k] = fa[at + 2 * k + 1]; }
    g.lineWidth = w;
    g.setLineDash(dashed ? [6, 4] : []);
    g.strokeStyle = colour(stroke, alpha);
    g.fillStyle = colour(fill, alpha);
    switch (kind) {
      case KIND.circle:
        g.beginPath(); g.arc(xs[0], ys[0], r, 0, 2 * Math.PI);
        if (fill) g.fill();
        if (stroke) g.stroke();
        break;
      case KIND.line: case KIND.polyline: case KIND.polygon:
        g.beginPath(); g.moveTo(xs[0], ys[0]);
        for (let k = 1; k < np; k++) g.lineTo(xs[k], ys[k]);
        if (kind === KIND.polygon) { g.closePath(); if (fill) g.fill(); }
        if (stroke) g.stroke();
        break;
      case KIND.rect: {
        const x = Math.min(xs[0], xs[1]), y = Math.min(ys[0], ys[1]);
        const w = Math.abs(xs[1] - xs[0]), h = Math.abs(ys[1] - ys[0]);
        if (fill) g.fillRect(x, y, w, h);
        if (stroke) g.strokeRect(x, y, w, h);
        break;
      }
      case KIND.arrow: {
        const dx = xs[1] - xs[0], dy = ys[1] - ys[0], len = Math.hypot(dx, dy) || 1;
        const ux = dx / len, uy = dy / len, head = Math.min(9, len / 2);
        g.beginPath(); g.moveTo(xs[0], ys[0]); g.lineTo(xs[1], ys[1]); g.stroke();
        g.setLineDash([]);
        g.fillStyle = colour(stroke, alpha);
        g.beginPath(); g.moveTo(xs[1], ys[1]);
        g.lineTo(xs[1] - head * ux + head * 0.5 * uy, ys[1] - head * uy - head * 0.5 * ux);
        g.lineTo(xs[1] - head * ux - head * 0.5 * uy, ys[1] - head * uy + head * 0.5 * ux);
        g.closePath(); g.fill();
        break;
      }
      case KIND.dots:
        g.beginPath();
        for (let k = 0; k < np; k++) { g.moveTo(xs[k] + r, ys[k]); g.arc(xs[k], ys[k], r, 0, 2 * Math.PI); }
        g.fill();
        break;
      case KIND.text:
        g.font = `${size || 12}px system-ui, sans-serif`;
        g.textAlign = ALIGN[align] || "left";
        g.textBaseline = "middle";
        g.fillStyle = colour(fill || 1, alpha);
        g.fillText(textDecoder.decode(text.subarray(tOff, tOff + tLen)), xs[0], ys[0]);
        break;
    }
  }
  dotLayer.flush(g);
  for (const [key, c] of layers) {
    if (seen.has(key)) continue;
    layers.delete(key);
    if (spareLayers.length < 2) spareLayers.push(c);
  }
  if (layers.size) warmPaint();
  // A test measuring the whole paint waits for the raster too (it happens
  // later, off the script's clock, otherwise).
  if (window.uldpFlushPaint) ctx.getImageData(0, 0, 1, 1);
  const ms = performance.now() - t0;
  stats.draws++; stats.drawMs += ms; stats.maxDrawMs = Math.max(stats.maxDrawMs, ms);
}

// warmPaint paints the figure's layers a second time once the page is
// idle, after the first layer the page shows. The browser optimises the
// painting code over its first runs, and a layer is painted again only
// when it changes: lesson 1's 40,000 dots took 100–150 ms to paint a
// second time, 7–27 ms from the third, and the second was the reader's
// first drag (before layers, the page painted everything twice as a lesson
// opened). Once per page, as the code is the same for every lesson; not
// while the reader drags or types, nor once a layer has been painted again.
let layersPainted = 0; // since the page opened (the tests reset stats.layerPaints)
let warming = false;
function warmPaint() {
  if (warming || layersPainted !== 1) return;
  warming = true;
  const later = () => idle(() => {
    if (layersPainted > 1) return;
    if (!lastFrame || performance.now() - lastAction < 1000) { later(); return; }
    if (!layers.size) { warming = false; return; } // a lesson without layers: wait for the next one
    for (const c of layers.values()) if (spareLayers.length < 2) spareLayers.push(c);
    layers.clear();
    paint(lastFrame);
  });
  later();
}

// size matches the canvas's backing store to its CSS size and pixel ratio.
function size() {
  const dpr = window.devicePixelRatio || 1;
  const w = canvas.clientWidth, h = canvas.clientHeight;
  if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(h * dpr);
    return true;
  }
  return false;
}

// refresh asks Go for the frame (null if unchanged) and repaints it, then
// brings the panel up to date.
function refresh(force, settle) {
  const resized = size();
  const t0 = performance.now();
  const buf = uldp.frame(canvas.clientWidth, canvas.clientHeight, force || resized);
  if (buf) {
    const ms = performance.now() - t0;
    stats.updates++; stats.updateMs += ms; stats.maxUpdateMs = Math.max(stats.maxUpdateMs, ms);
    lastFrame = buf;
    paint(buf);
    const t1 = performance.now();
    stats.maxFrameMs = Math.max(stats.maxFrameMs, t1 - t0);
    syncPanel(settle);
    stats.maxPanelMs = Math.max(stats.maxPanelMs, performance.now() - t1);
  } else if (resized && lastFrame) {
    paint(lastFrame);
  }
}

// ---------------------------------------------------------------- panel

// The keys that open lessons 1, 2, …: the number row, 1–9, 0, then - and
// = (viz.LessonKey in Go); the menu reaches any beyond.
const LESSON_KEYS = "1234567890-=";

let builtFor = ""; // scene + control names the panel was built for
let shownRefusal = null; // the one control's refusal shown under it, until a change is accepted

// clearRefusal takes away a control's refusal once a change (a control's,
// a key's, a drag's) is accepted: it no longer says what the lesson is at.
function clearRefusal() {
  if (!shownRefusal) return;
  shownRefusal.hidden = true; shownRefusal.textContent = ""; shownRefusal = null;
}
const inputs = new Map(); // control name → {control, el, number}

function keyLabel(k) {
  return { ArrowLeft: "←", ArrowRight: "→", Space: "Space", End: "End" }[k] || k.toUpperCase();
}

// Log sliders run 0…1000 internally and map geometrically onto min…max,
// then snap to the control's step (counts move in whole numbers).
const toSlider = (c, v) => c.log ? 1000 * Math.log(v / c.min) / Math.log(c.max / c.min) : v;
function fromSlider(c, s) {
  if (!c.log) return s;
  const v = c.min * Math.pow(c.max / c.min, s / 1000);
  return c.step > 0 ? Math.min(c.max, c.min + Math.round((v - c.min) / c.step) * c.step) : v;
}

function buildControl(c) {
  const id = "ctl-" + c.name;
  if (c.kind === "button") {
    const b = document.createElement("button");
    b.type = "button"; b.id = id; b.textContent = c.label;
    if (c.key) b.title = `${c.help ? c.help + " — " : ""}key ${keyLabel(c.key)}`;
    else if (c.help) b.title = c.help;
    b.addEventListener("click", () => { call("set", c.name, ""); refresh(false, true); });
    inputs.set(c.name, { control: c, el: b });
    return b;
  }
  const row = document.createElement("div");
  row.className = "row";
  const label = document.createElement("label");
  label.htmlFor = id;
  label.textContent = c.label + (c.unit ? ` (${c.unit})` : "");
  row.append(label);
  let el, number;
  // A refusal also shows under the control typed into: the banner above
  // the lesson may be out of view there. It says what was refused; the box
  // shows the value in force again, and the next accepted change of any
  // kind takes the refusal away (callFor).
  const refusal = document.createElement("div");
  refusal.className = "refusal"; refusal.id = "refusal-" + c.name; refusal.hidden = true;
  const commit = (v) => {
    const err = callFor("set", c.name, String(v));
    if (err) {
      clearRefusal();
      refusal.textContent = err;
      refusal.hidden = false;
      shownRefusal = refusal;
    }
    refresh(false, true);
  };
  if (c.kind === "slider") {
    const wrap = document.createElement("div");
    wrap.className = "slider";
    el = document.createElement("input");
    el.type = "range"; el.id = id;
    el.min = c.log ? 0 : c.min; el.max = c.log ? 1000 : c.max;
    el.step = c.log ? 1 : (c.step || "any");
    el.addEventListener("input", () => {
      const v = fromSlider(c, Number(el.value));
      number.value = c.step >= 1 ? v : Number(v.toPrecision(4));
      commit(number.value);
    });
    number = document.createElement("input");
    number.type = "number"; number.step = c.step || "any";
    number.setAttribute("aria-label", c.label + " value");
    number.addEventListener("change", () => commit(number.value));
    wrap.append(el, number);
    row.append(wrap);
  } else if (c.kind === "choice") {
    el = document.createElement("select"); el.id = id;
    for (const ch of c.choices) el.append(new Option(ch, ch));
    el.addEventListener("change", () => commit(el.value));
    row.append(el);
  } else if (c.kind === "toggle") {
    el = document.createElement("input"); el.type = "checkbox"; el.id = id;
    el.addEventListener("change", () => commit(el.checked ? "true" : "false"));
    row.append(el);
  } else {
    el = document.createElement("input"); el.id = id;
    el.type = c.kind === "number" ? "number" : "text";
    if (c.kind === "number") el.step = "any";
    el.addEventListener("change", () => commit(el.value));
    row.append(el);
  }
  // The help follows the value (a choice's help describes the chosen one).
  const help = document.createElement("div");
  help.className = "help"; withErrata(help, c.help || "");
  help.hidden = !c.help;
  row.append(refusal, help);
  for (const box of [el, number]) if (box) box.setAttribute("aria-describedby", refusal.id);
  inputs.set(c.name, { control: c, el, number, help });
  return row;
}

// syncKeys lists the keys this lesson answers to: its controls' shortcuts,
// then the lesson numbers.
function syncKeys() {
  const parts = ["Keys: "];
  const sep = () => { if (parts.length > 1) parts.push(" · "); };
  for (const c of controls) {
    if (!c.key || (c.kind !== "button" && c.kind !== "toggle")) continue;
    sep();
    const k = document.createElement("kbd"); k.textContent = keyLabel(c.key);
    parts.push(k, " " + c.label.toLowerCase());
  }
  sep();
  const kbd = (t) => { const k = document.createElement("kbd"); k.textContent = t; return k; };
  const figureKeys = uldp.figureKeys();
  if (figureKeys) { parts.push("on the figure: " + figureKeys); sep(); }
  if (menu.length <= 9) parts.push(kbd("1"), "–", kbd(String(menu.length)), " lessons");
  else {
    parts.push(kbd("1"), "–", kbd("9"));
    for (const k of LESSON_KEYS.slice(9, menu.length)) parts.push(", ", kbd(k));
    parts.push(menu.length > LESSON_KEYS.length ? ` lessons 1–${LESSON_KEYS.length}` : " lessons");
  }
  $("keys").replaceChildren(...parts);
}

// The engine sends the panel's parts only when they changed (null otherwise);
// a new lesson sends them all.
let controls = [];
let certifyShown = ""; // the certify button's line and state the guarantee's box shows
function syncPanel(settle) {
  const fresh = builtFor === "";
  const buf = uldp.controls(fresh);
  if (buf) controls = new Wire(buf).list(readControl);
  // Rebuilt when the controls or a select's choices change (the audit
  // lab's pairs depend on its mechanism).
  // The certify button lives in the guarantee's box: its coming and going
  // (a slider dragged across the certified boundary) must not rebuild the
  // form under the reader's hands, but its line and state redraw the box.
  const form = controls.filter((c) => c.group !== "guarantee");
  const key = uldp.current() + ":" + form.map((c) => c.name + "=" + (c.choices || []).join("|")).join(",");
  const certify = controls.find((c) => c.group === "guarantee");
  const certifyKey = certify ? `${certify.help}|${certify.disabled}` : "";
  const recertify = certifyKey !== certifyShown;
  certifyShown = certifyKey;
  if (key !== builtFor) {
    builtFor = key;
    syncExports();
    syncKeys();
    inputs.clear();
    $("stepper").replaceChildren();
    $("controls").replaceChildren();
    for (const c of form) {
      const el = buildControl(c);
      if (c.group === "stepper") {
        $("stepper").append(el);
      } else if (c.kind === "button") {
        const row = document.createElement("div");
        row.className = "row button"; row.append(el);
        $("controls").append(row);
      } else {
        $("controls").append(el);
      }
    }
  }
  for (const c of controls) {
    const entry = inputs.get(c.name);
    if (!entry) continue;
    const { el, number, help } = entry;
    if (help && (c.help || "") !== (entry.control.help || "")) {
      withErrata(help, c.help || ""); help.hidden = !c.help;
    }
    entry.control = c;
    if (c.kind === "button") { el.textContent = c.label; el.disabled = !!c.disabled; continue; }
    // Don't fight the user in the input they are in; its partner follows
    // (a value typed in a slider's box and entered moves the handle).
    const active = document.activeElement;
    if (c.kind === "slider") {
      if (active !== el) el.value = toSlider(c, Number(c.value));
      if (active !== number) number.value = c.value;
    } else if (active === el) continue;
    else if (c.kind === "toggle") el.checked = c.value === "true";
    else el.value = c.value;
  }
  syncReadouts(fresh);
  syncGuarantee(fresh || recertify);
  syncURL(uldp.state(), settle);
  syncWords(settle);
}

// syncURL keeps the address bar on the view. While a lesson plays or a
// drag moves, the state changes every frame; browsers throttle (and warn
// about) more than a few history changes a second, so those writes come at
// most every 100 ms, the last one always. A settling input (a control, a
// key, a button, letting go of a drag) writes at once.
let urlState = "", urlWritten = 0, urlTimer = 0;
function writeURL() {
  clearTimeout(urlTimer);
  urlTimer = 0;
  urlWritten = performance.now();
  history.replaceState(null, "", "#" + urlState);
}
function syncURL(state, settle) {
  if (state === urlState) {
    if (settle && urlTimer) writeURL();
    return;
  }
  urlState = state;
  const wait = 100 - (performance.now() - urlWritten);
  if (settle || wait <= 0) writeURL();
  else if (!urlTimer) urlTimer = setTimeout(writeURL, wait);
}

// withErrata fills el with text, each mention of an erratum ("erratum
// A13", "errata A1, A2", "errata A13–A16") a link to its entry on the
// errata page.
const ERRATUM = /errat(?:um|a) A(\d+)(?:(?:, |–| and )A\d+)*/g;
function withErrata(el, text) {
  el.replaceChildren();
  let last = 0;
  for (const m of text.matchAll(ERRATUM)) {
    el.append(text.slice(last, m.index));
    const a = document.createElement("a");
    a.href = `errata.html#a${m[1]}`; a.className = "erratum"; a.textContent = m[0];
    el.append(a);
    last = m.index + m[0].length;
  }
  el.append(text.slice(last));
}

let wasComputing = false; // the readouts last said a computation was under way

// The panel is rebuilt only when its content changed: during playback most
// frames change the figure and a readout or two, never the guarantee.
function syncReadouts(force) {
  const buf = uldp.readouts(force);
  if (!buf) return;
  const list = $("readouts");
  list.replaceChildren();
  let status = ""; // a lesson or step without a status line shows none
  let computing = false;
  for (const r of new Wire(buf).list(readReadout)) {
    if (r.name === "status") { status = r.text; continue; }
    computing ||= r.name === "computing";
    const dt = document.createElement("dt"); dt.textContent = r.label;
    const dd = document.createElement("dd"); withErrata(dd, r.text);
    dd.dataset.name = r.name;
    if (r.warn) dd.className = "warn";
    if (r.formula) {
      const f = document.createElement("div");
      f.className = "formula"; withErrata(f, r.formula);
      dd.append(f);
    }
    list.append(dt, dd);
  }
  $("status").textContent = status;
  // A run computed between frames becomes exportable when it is done. Only
  // then: asking whether a lesson can export may copy its dataset (100,000
  // users in robust SGD), too slow for every frame.
  if (computing !== wasComputing) syncExports();
  wasComputing = computing;
}

function syncGuarantee(force) {
  const buf = uldp.guarantee(force);
  if (!buf) return;
  const g = readGuarantee(buf);
  const box = $("guarantee");
  // A reader in the box (on the claim, after the certify button) stays
  // there when it is redrawn: a run computed later redraws it again.
  const focused = box.contains(document.activeElement);
  // The conditions' open state is read off the box being replaced, so a
  // toggle still queued when it is rebuilt is not lost or reversed.
  const shown = box.querySelector("details.conditions");
  if (shown) conditionsOpen = shown.open;
  box.replaceChildren();
  const claim = document.createElement("div");
  claim.className = "claim";
  claim.tabIndex = -1;
  if (g.eps === null) {
    claim.textContent = `No privacy guarantee (${g.mode} mode)`;
    claim.classList.add("uncertified");
  } else {
    claim.textContent = `(ε = ${fmt(g.eps)}, δ = ${fmt(g.delta)})-DP ${g.level} — ` +
      (g.certified ? "certified" : "NOT certified");
    claim.classList.add(g.certified ? "certified" : "uncertified");
  }
  box.append(claim);
  const mode = document.createElement("div");
  withErrata(mode, `mode: ${g.mode}` + (g.note ? ` · ${g.note}` : ""));
  box.append(mode);
  if (g.eps !== null && !g.certified) box.append(notCertified(g));
  if (g.preconditions.length) {
    // The proof's conditions fold away (a lesson has up to nine, and
    // they pushed the controls below the fold), their count in the
    // summary; the box remembers whether the reader opened them.
    const ul = document.createElement("ul");
    let unmet = 0;
    for (const p of g.preconditions) {
      const li = document.createElement("li");
      withErrata(li, p.op === "holds"
        ? `${p.what} — ${p.met ? "holds" : "does NOT hold"}`
        : `${p.what}: ${fmt(p.have)} ${p.op} ${fmt(p.need)} — ${p.met ? "met" : "NOT met"}`);
      if (!p.met) { li.className = "unmet"; unmet++; }
      ul.append(li);
    }
    const details = document.createElement("details");
    details.className = "conditions";
    details.open = conditionsOpen;
    const summary = document.createElement("summary");
    const n = g.preconditions.length;
    summary.textContent = unmet ? `the proof's ${n} conditions: ${unmet} NOT met` : `the proof's ${n} conditions: all met`;
    if (unmet) summary.className = "unmet";
    details.append(summary, ul);
    box.append(details);
  }
  if (focused) claim.focus();
}

let conditionsOpen = false; // whether the reader opened the guarantee's conditions

// notCertified says what an uncertified claim means, so it does not read as
// "broken": in the lesson's own words, with its nearest certified settings
// one click away, where it has them; else it offers sound mode where the
// lesson has it.
function notCertified(g) {
  const why = document.createElement("p");
  why.className = "why";
  const errata = document.createElement("a");
  errata.href = "errata.html"; errata.textContent = "the errata";
  const modes = controls.find((c) => c.name === "mode");
  const certify = controls.find((c) => c.group === "guarantee");
  if (certify) {
    const line = document.createElement("span");
    line.id = "certify-why";
    withErrata(line, certify.help + " ");
    why.append(line);
    if (!certify.disabled) {
      const b = document.createElement("button");
      b.type = "button"; b.id = "use-certified"; b.textContent = "Use the nearest certified settings";
      b.setAttribute("aria-describedby", "certify-why");
      // The button goes with the box's redraw (the settings certify, or
      // their run is computed), which keeps the focus on the new claim.
      b.addEventListener("click", () => { call("set", "certify", ""); refresh(false, true); });
      why.append(b);
    }
  } else if (g.mode === "paper" && modes?.choices.includes("sound")) {
    why.append("Paper mode runs the constants as the paper prints them, and their proof has gaps (",
      errata, "): the lines marked NOT say which. Sound mode runs the same algorithm with constants the corrected proof supports. ");
    const b = document.createElement("button");
    b.type = "button"; b.id = "use-sound"; b.textContent = "Use sound mode";
    b.addEventListener("click", () => { call("set", "mode", "sound"); refresh(false, true); });
    why.append(b);
  } else {
    why.append("Not certified: the proof behind this claim does not cover this run, and the lines marked NOT say why (",
      errata, " explain the papers' gaps).");
  }
  return why;
}

const fmt = (x) => (typeof x === "number" ? Number(x.toPrecision(4)).toString() : String(x));

// ---------------------------------------------------------------- lessons and prose

function buildNav() {
  const nav = $("lessons");
  nav.replaceChildren();
  menu.forEach((s, i) => {
    const a = document.createElement("a");
    a.href = "#scene=" + s.name;
    a.textContent = `${i + 1}. ${s.title}`;
    a.title = s.summary;
    a.dataset.scene = s.name;
    a.addEventListener("click", (e) => {
      e.preventDefault();
      // A choice in the open drawer closes it; the focus goes back to its
      // button rather than to the page (the chosen link is hidden).
      if (nav.classList.contains("open")) { openMenu(false); $("lessons-toggle").focus(); }
      switchTo(s.name);
    });
    aheadOnRest(a, s);
    nav.append(a);
  });
  const errata = document.createElement("a");
  errata.href = "errata.html"; errata.className = "errata-link"; errata.textContent = "Errata";
  errata.title = "where the papers' text and the lessons part ways, and why";
  nav.append(errata);
  const toggle = $("lessons-toggle");
  toggle.onclick = () => openMenu(toggle.getAttribute("aria-expanded") !== "true");
  // Escape closes the drawer from its button or from within it.
  toggle.parentElement.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && nav.classList.contains("open")) { e.stopPropagation(); openMenu(false); toggle.focus(); }
  });
  // A window widened past the drawer shows the whole menu: the drawer is
  // closed, and stays closed when the window narrows again.
  matchMedia("(max-width: 900px)").addEventListener("change", () => openMenu(false));
}

// openMenu opens or closes the phone's lesson drawer (wider screens show
// the menu whole and never the button).
function openMenu(open) {
  $("lessons").classList.toggle("open", open);
  $("lessons-toggle").setAttribute("aria-expanded", String(open));
}

let proseFor = "";
async function syncLesson() {
  const name = uldp.current();
  for (const a of $("lessons").children) {
    if (a.dataset.scene === name) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  if (proseFor === name) return;
  proseFor = name;
  const i = menu.findIndex((s) => s.name === name);
  const title = i < 0 ? "" : menu[i].title;
  const label = document.createElement("span");
  label.className = "label";
  label.textContent = i < 0 ? "Lessons" : `Lessons: ${i + 1}. ${title}`;
  $("lessons-toggle").replaceChildren(label);
  openMenu(false); // whatever changed the lesson (a key, a link, the exercises)
  document.title = `${title} — ULDP Lab`;
  $("lesson-title").textContent = title;
  const res = await fetch(`lessons/${name}.html`);
  const html = res.ok ? await res.text() : "";
  if (proseFor !== name) return; // another lesson opened meanwhile: its text wins
  $("prose").innerHTML = html;
  $("prose").dataset.lesson = name;
}

// switchTo opens another lesson where the reader left it.
function switchTo(name) {
  if (name === current) return;
  return start(name, states.get(name) || "scene=" + name);
}

// ---------------------------------------------------------------- input

function local(e) {
  const r = canvas.getBoundingClientRect();
  return [e.clientX - r.left, e.clientY - r.top];
}

function pointer(kind, e) {
  const [x, y] = local(e);
  const id = e.pointerType === "mouse" ? 0 : e.pointerId;
  const t0 = performance.now();
  const changed = uldp.event(kind, x, y, id, 0);
  if (changed) clearRefusal();
  acted();
  if (changed) refresh(false, kind !== "move");
  else if (kind !== "move") { syncURL(uldp.state(), true); syncWords(true); }
  stats.lastInputMs = performance.now() - t0;
}

// With prefers-reduced-motion, playback goes at most a step a second.
const reducedMotion = matchMedia("(prefers-reduced-motion: reduce)");

function wireInput() {
  reducedMotion.addEventListener("change", () => uldp.reduceMotion(reducedMotion.matches));
  // The skip link focuses the figure without putting "#figure" in the
  // address, which holds the lesson's state.
  document.querySelector(".skip").addEventListener("click", (e) => { e.preventDefault(); canvas.focus(); });
  // Enter in a number box must not submit the controls' form (the page's
  // policy forbids inline handlers, so this is here, not in the HTML).
  $("controls").addEventListener("submit", (e) => e.preventDefault());
  // The figure takes the focus without scrolling: a figure partly below
  // the window would otherwise scroll into view under the pointer, and the
  // press would land on another point than the one pressed.
  canvas.addEventListener("pointerdown", (e) => { canvas.setPointerCapture(e.pointerId); canvas.focus({ preventScroll: true }); pointer("down", e); });
  // An item the keyboard holds is let go where it is when the figure loses
  // the focus: arrows elsewhere are the page's.
  canvas.addEventListener("blur", () => { if (window.uldp && uldp.release()) refresh(false, true); });
  canvas.addEventListener("pointermove", (e) => pointer("move", e));
  canvas.addEventListener("pointerup", (e) => pointer("up", e));
  canvas.addEventListener("pointercancel", (e) => pointer("up", e));
  canvas.addEventListener("wheel", (e) => {
    const [x, y] = local(e);
    if (uldp.event("wheel", x, y, 0, -Math.sign(e.deltaY))) { e.preventDefault(); refresh(); }
  }, { passive: false });
  document.addEventListener("keydown", (e) => {
    const t = e.target;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    // Keys typed into a field or a slider belong to it.
    if (t instanceof HTMLInputElement || t instanceof HTMLSelectElement || t instanceof HTMLTextAreaElement) return;
    if (t instanceof HTMLButtonElement && (e.key === " " || e.key === "Enter")) return; // let buttons click
    if (e.key.length === 1 && LESSON_KEYS.includes(e.key)) {
      const l = menu[LESSON_KEYS.indexOf(e.key)];
      if (l) { e.preventDefault(); switchTo(l.name); }
      return;
    }
    if (!window.uldp) return;
    // The figure's own keys (choose, pick up, drop an item) work when it
    // has the focus; elsewhere ↑ ↓ scroll and Enter and Escape are the
    // page's.
    const onFigure = t === canvas;
    if (!onFigure && ["ArrowUp", "ArrowDown", "Enter", "Escape"].includes(e.key)) return;
    const key = onFigure && e.shiftKey && e.key.startsWith("Arrow") ? "Shift+" + e.key : e.key;
    const done = uldp.key(key);
    if (done) clearRefusal();
    acted();
    if (done) {
      e.preventDefault();
      refresh(false, true);
    }
  });
  window.addEventListener("hashchange", () => {
    if (!window.uldp || location.hash.slice(1) === uldp.state()) return;
    const name = lessonOf(location.hash) || menu[0].name;
    const entry = menu.find((l) => l.name === name);
    if (name !== current || (entry && moduleFor(entry, location.hash) !== currentModule)) { start(name, location.hash); return; }
    call("restore", location.hash);
    refresh(true, true);
  });
  window.addEventListener("resize", () => refresh()); // the pixel ratio too (a zoom)
  // The figure's box changes size without the window's too (the page's
  // scroll bar appears, a column reflows, a phone turns): paint it anew at
  // its size rather than let the browser stretch the old bitmap.
  new ResizeObserver(() => { if (size()) refresh(true); }).observe(canvas);
}

// ---------------------------------------------------------------- exports

function download(name, data, type) {
  const url = URL.createObjectURL(data instanceof Blob ? data : new Blob([data], { type }));
  const a = document.createElement("a");
  a.href = url; a.download = name;
  document.body.append(a); a.click(); a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

let exporting = false; // a trace is being prepared: its button stays greyed out

// syncExports greys out the downloads the lesson does not offer (yet:
// a run computed between frames has nothing to export until it is done).
function syncExports() {
  const can = uldp.canExport() || {};
  for (const [id, ok, what] of [["export-trace", can.trace, "run"], ["export-csv", can.csv, "dataset"]]) {
    if ($(id).disabled === !ok || (id === "export-trace" && exporting)) continue;
    $(id).disabled = !ok;
    $(id).title = ok ? "" : `this lesson has no ${what} to export`;
  }
}

function wireExports() {
  $("export-png").addEventListener("click", () => {
    canvas.toBlob((b) => download(`uldp-${uldp.current()}.png`, b), "image/png");
  });
  $("export-csv").addEventListener("click", () => {
    const r = uldp.exportCSV();
    if (!r || r.error) { report(r ? r.error : uldp.lastError); return; }
    download(`uldp-${uldp.current()}.csv`, r.data, "text/csv");
  });
  $("export-trace").addEventListener("click", exportTrace);
}

// textWorker is the page's side of a Web Worker of the engines that answer
// text (textengine.js: the practice grader, the trace exports), started
// on its first call. call asks the engine entry's function fn of args and
// returns a Promise of its data (a Blob of type blob, if given), rejected
// with an Error whose down says that the engine itself failed (it could
// not load, or stopped); a call longer than limit.ms fails with
// limit.message and ends the worker, as a worker the browser ends or whose
// answer cannot be read fails every call waiting. The next call then
// starts a fresh one.
function textWorker(global, what) {
  let worker = null, calls = 0;
  const waiting = new Map(); // call id → {resolve, reject}
  const stop = (err) => {
    for (const w of waiting.values()) w.reject(err);
    waiting.clear();
    worker?.terminate();
    worker = null;
  };
  const down = (why) => { const err = new Error(why); err.down = true; stop(err); };
  return function call(entry, fn, args, { blob, limit } = {}) {
    if (!worker) {
      worker = new Worker("textengine.js");
      worker.onmessage = (e) => {
        const w = waiting.get(e.data.id);
        waiting.delete(e.data.id);
        if (e.data.error === undefined) { w.resolve(e.data.data); return; }
        const err = new Error(e.data.error);
        err.down = !!e.data.down;
        w.reject(err);
      };
      worker.onerror = (e) => { e.preventDefault(); down(`${what} stopped (${e.message || "no reason given"})`); };
      worker.onmessageerror = () => down(`${what}'s answer could not be read`);
    }
    const id = ++calls;
    return new Promise((resolve, reject) => {
      // A worker the browser ends (for memory, say) may say nothing at all.
      const timer = limit && setTimeout(() => stop(new Error(limit.message)), limit.ms);
      const done = (f) => (v) => { clearTimeout(timer); f(v); };
      waiting.set(id, { resolve: done(resolve), reject: done(reject) });
      worker.postMessage({ id, entry, global, what, fn, args, blob });
    });
  };
}

// exportTrace writes the run as JSON. The lesson engines carry no JSON
// encoder; the lesson's export engine, the same lesson with JSON, rebuilds
// the run from the lesson's state and dataset (runs are deterministic) and
// writes it, in a Web Worker: at the sliders' maxima the rebuild computes
// as long as the run, seconds the page would freeze for. Without workers
// the page runs the engine itself. uldpExportsElsewhere counts the
// exports a worker made, for the tests.
const exportElsewhere = textWorker("uldpExport", "the trace export");
const EXPORT_LIMIT = 600000; // ms: a trace at DP-SGD's maxima takes about a minute on a two-core machine
const exportLimit = {
  ms: EXPORT_LIMIT,
  message: `the trace took longer than ${EXPORT_LIMIT / 60000} minutes in this browser; try smaller settings, or run the lesson's settings with the uldp command`,
};
const exporters = new Map(); // module → Promise of its export engine, on the page (no workers)
window.uldpExportsElsewhere = 0;
async function exportTrace() {
  const button = $("export-trace");
  exporting = true;
  const name = current, mod = currentModule, state = uldp.state();
  const csv = uldp.canExport().csv ? uldp.exportCSV().data || "" : "";
  button.disabled = true;
  const label = button.textContent;
  button.textContent = "preparing the trace…";
  try {
    let data;
    if (window.Worker) {
      data = await exportElsewhere(mod.export, "trace", [state, csv], { blob: "application/json", limit: exportLimit });
      window.uldpExportsElsewhere++;
    } else {
      data = await exportHere(mod, state, csv);
    }
    download(`uldp-${name}.json`, data, "application/json");
  } catch (err) {
    report(err.down ? "The trace could not be exported: " + err.message : err.message);
  } finally {
    exporting = false;
    button.textContent = label;
    syncExports();
  }
}

// exportHere runs the export engine on the page (a browser without
// workers).
async function exportHere(mod, state, csv) {
  let ex;
  try {
    if (!exporters.has(mod.name)) exporters.set(mod.name, startExporter(mod.export));
    ex = await exporters.get(mod.name);
  } catch (err) {
    exporters.delete(mod.name);
    err.down = true;
    throw err;
  }
  let r;
  try {
    r = ex.trace(state, csv);
  } catch (err) { // the engine's program has stopped: the next export starts it afresh
    exporters.delete(mod.name);
    err.down = true;
    throw err;
  }
  if (!r || r.error) throw new Error(r ? r.error : ex.lastError || "the trace export failed");
  return r.data;
}

async function startExporter(entry) {
  const res = await fetch(entry.module);
  if (!res.ok) throw new Error(`${entry.module}: ${res.status} ${res.statusText}`);
  const go = new Go();
  const ready = new Promise((resolve) => { window.uldpExportReady = resolve; });
  const { instance } = await WebAssembly.instantiateStreaming(res, go.importObject);
  go.run(instance);
  await ready;
  return window.uldpExport;
}

// ---------------------------------------------------------------- words

// The figure in words: its accessible name (the lesson and the keys that
// work on it) and its description (what it shows now), brought up to date
// when something settles — a key, a control, a drag let go, playback or a
// computation ending — and spoken then through a polite live region, the
// last of a quick succession only; never frame by frame while a run plays.
let described = "", wasBusy = false, announceTimer = 0;
function syncWords(settle) {
  const busy = uldp.busy();
  const stopped = wasBusy && !busy;
  wasBusy = busy;
  if (!settle && !stopped) return;
  const label = uldp.label();
  if (canvas.getAttribute("aria-label") !== label) canvas.setAttribute("aria-label", label);
  const text = uldp.describe();
  if (text === described) return;
  // Spoken: only the sentences and clauses that changed (the step, the
  // item held and where, the readouts that moved), not the whole text
  // again; the description keeps all of it.
  const before = new Set(clauses(described));
  const news = clauses(text).filter((c) => !before.has(c)).join(" ");
  described = text;
  $("figure-desc").textContent = text;
  clearTimeout(announceTimer);
  announceTimer = setTimeout(() => { $("announce").textContent = news || text; }, 400);
}

// clauses splits a description at its full stops and semicolons.
const clauses = (text) => text.split(/(?<=[.;])\s+/).filter(Boolean);

// ---------------------------------------------------------------- main loop

let lastTick = 0;
function loop(t) {
  const dt = lastTick ? Math.min((t - lastTick) / 1000, 0.25) : 0;
  lastTick = t;
  if (window.uldp) {
    offload();
    const t0 = performance.now();
    const changed = uldp.tick(dt);
    const ms = performance.now() - t0;
    if (changed) giveWay();
    stats.ticks++; stats.tickMs += ms; stats.maxTickMs = Math.max(stats.maxTickMs, ms);
    if (changed) refresh();
  }
  requestAnimationFrame(loop);
}

// The exercises' script loads with a student's saved progress, or at the
// first click on Exercises: a first visit to a lesson fetches none of it
// (6 KB with gzip, a little under 1 % of the visit).
const EX_STORE = "uldp.exercises.v1";
let exercisesLoaded = null; // Promise of exercises.js, once asked for
function loadExercises() {
  exercisesLoaded ||= new Promise((resolve, reject) => {
    const s = document.createElement("script");
    s.src = "exercises.js";
    const failed = (why) => { exercisesLoaded = null; s.remove(); reject(new Error(why)); };
    // A script that loads but does not run (one that cannot parse) defines
    // no showDialog: refused, so that a later click tries again.
    s.onload = () => typeof showDialog === "function" ? resolve() : failed("the exercises' script did not run");
    s.onerror = () => failed("the exercises' script did not load; check the connection and try again");
    document.body.append(s);
  });
  return exercisesLoaded;
}
// wireExercisesLoader makes the Exercises button load the exercises'
// script, if it has not, and open their dialog (exercises.js's showDialog).
function wireExercisesLoader() {
  $("exercises-open").addEventListener("click", () => loadExercises().then(() => showDialog())
    .catch((err) => report("The exercises could not load: " + err.message)));
  let saved = null;
  try { saved = localStorage.getItem(EX_STORE); } catch { /* no storage: nothing saved */ }
  if (saved) loadExercises().catch((err) => report("Your exercises could not load: " + err.message));
}

async function main() {
  wireExercisesLoader();
  try {
    menuLoaded = loadMenu();
    await menuLoaded;
  } catch (err) {
    $("loading").innerHTML = "";
    report("The lessons could not load: " + err.message);
    return;
  }
  buildNav();
  const hash = location.hash.length > 1 ? location.hash : "";
  await start(lessonOf(hash) || menu[0].name, hash);
  if (!window.uldp) return; // start reported why
  wireInput();
  wireExports();
  refresh(true);
  window.uldpReadyAt = performance.now();
  document.body.dataset.ready = "true";
  requestAnimationFrame(loop);
}

main();
