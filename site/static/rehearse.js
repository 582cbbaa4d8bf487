// The rehearsal worker. A browser compiles each WebAssembly function the
// first time it runs, on the thread that runs it: a lesson's first step,
// first drag or first press of End held the page for 50–75 ms, most of it
// compiling. Once a lesson is interactive the page hands this worker the
// compiled module it runs; the worker starts a copy of the lesson of its
// own and does, for a bounded time, what a reader does first (draws at the
// page's size and a phone's, reads the panel, steps, ends, drags, plays),
// so that the code is compiled here, into the module the page's copy
// shares, and not on the page's thread. Then it ends its copy.
//
// The page posts {module, state, width, height, budgetMs}; the worker
// answers {ms, calls, stage} or {error, calls, stage}, stage the last part
// of the rehearsal begun ("opened", "drawn", "collected", "keys", "drags",
// "played").
"use strict";

importScripts("lesson-worker.js");

self.onmessage = async (e) => {
  const { module, state, width, height, budgetMs } = e.data;
  const t0 = performance.now();
  let calls = 0, stage = "";
  try {
    const u = await openLesson(module);
    stage = "opened";
    const left = () => performance.now() - t0 < budgetMs;
    const run = (fn, ...args) => { calls++; return u[fn](...args); };
    // settle lets a computation under way go on for at most n frames'
    // slices: enough to run its code, not to finish a long one twice over.
    const settle = (n) => { for (let i = 0; i < n && run("busy") && left(); i++) run("tick", 1 / 60); };
    const show = (w, h) => {
      run("frame", w, h, true);
      for (const fn of ["controls", "readouts", "guarantee"]) run(fn, true);
      for (const fn of ["describe", "label", "state", "figureKeys", "canExport"]) run(fn);
    };
    if (state) run("restore", state);
    settle(40); // the lesson's opening run, which steps and ends need
    stage = "drawn";
    show(width, height);
    show(390, 600); // a phone's layout
    // The collector, which every later call may start: a rehearsal
    // allocates too little to start it itself.
    stage = "collected";
    run("collect");
    show(width, height);
    run("collect");
    stage = "keys";
    for (const k of ["ArrowRight", "ArrowRight", "ArrowLeft", "End", "Home", "ArrowRight", "Tab", "Enter"]) {
      if (!left()) break;
      run("key", k);
      settle(2);
      show(width, height);
    }
    // Drags: of the first item, then from a few places over the figure
    // (whatever lies there: a bar, a user, a handle, nothing).
    stage = "drags";
    run("frame", width, height, true);
    const places = [[0.5, 0.5], [0.55, 0.5], [0.25, 0.5], [0.75, 0.5], [0.5, 0.25], [0.5, 0.75]];
    for (const at of [run("locate", 1), ...places.map(([x, y]) => [x * width, y * height])]) {
      if (!at || !left()) continue;
      run("event", "down", at[0], at[1], 0, 0);
      // A loop of 40 px, far enough to cross something (a bar the
      // threshold, a user the crowd's edge) and come back.
      let x = at[0], y = at[1];
      for (let i = 1; i <= 6 && left(); i++) {
        x = at[0] + 40 * Math.sin(i * Math.PI / 3);
        y = at[1] + 40 * (1 - Math.cos(i * Math.PI / 3));
        run("event", "move", x, y, 0, 0);
        settle(1);
        show(width, height);
      }
      run("event", "up", x, y, 0, 0);
    }
    stage = "played";
    run("key", " ");
    for (let i = 0; i < 30 && left(); i++) { run("tick", 1 / 60); run("frame", width, height, false); }
    run("key", " ");
    if (u.lastError) throw new Error(u.lastError);
    run("exit");
    self.postMessage({ ms: performance.now() - t0, calls, stage });
  } catch (err) {
    self.postMessage({ error: err.message, calls, stage });
  }
};
