// The practice grader's Web Worker. With no server to grade exercises (a
// copy of the site served as plain files), exercise mode offers practice:
// this worker runs the practice engine (every lesson with the server's own
// grader, see lessons.json's "practice"), so a grading that runs lessons
// for seconds never stalls the page.
//
// The page posts {id, entry, fn, args}: entry is the engine's menu entry,
// fn "sheet" or "grade" (the engine's functions), args their strings. The
// worker answers {id, data} (the JSON the server would send) or {id, error}.
"use strict";

importScripts("wasm_exec.js");

let grader = null; // Promise of the engine's uldpPractice, started on the first call

async function boot(entry) {
  const res = await fetch(entry.module);
  if (!res.ok) throw new Error(`${entry.module}: ${res.status} ${res.statusText}`);
  const go = new Go();
  const ready = new Promise((resolve) => { self.uldpPracticeReady = resolve; });
  let instance;
  try {
    ({ instance } = await WebAssembly.instantiateStreaming(res.clone(), go.importObject));
  } catch (err) {
    // A static host may not call the module application/wasm, which
    // streaming compilation insists on: compile it from its bytes.
    if (!(err instanceof TypeError)) throw err;
    ({ instance } = await WebAssembly.instantiate(await res.arrayBuffer(), go.importObject));
  }
  // A program that exits (a fatal error) is started afresh by the next call.
  const ran = go.run(instance).then(() => { grader = null; });
  await Promise.race([ready, ran.then(() => { throw new Error("the practice grader stopped as it started"); })]);
  return self.uldpPractice;
}

// A call answers {id, data} or {id, error}; down marks an error of the
// grader itself (it could not load, or stopped), not of what it was asked.
self.onmessage = async (e) => {
  const { id, entry, fn, args } = e.data;
  let g;
  try {
    if (!grader) {
      grader = boot(entry);
      grader.catch(() => { grader = null; }); // a failed load may be retried
    }
    g = await grader;
  } catch (err) {
    self.postMessage({ id, error: err.message, down: true });
    return;
  }
  try {
    const r = g[fn](...args);
    if (!r) throw new Error(g.lastError || "the practice grader failed"); // a panic, recovered
    self.postMessage(r.error ? { id, error: r.error } : { id, data: r.data });
  } catch (err) {
    self.postMessage({ id, error: err.message, down: grader === null });
  }
};
