// The Web Worker of the engines that answer text (wasm.ServeText): the
// practice grader and the lessons' trace exports. Both compute for seconds
// at times (a grading runs lessons; an export rebuilds a run from its
// settings, at the sliders' maxima as long as the run), so here, never on
// the page's thread.
//
// The page posts {id, entry, global, what, fn, args, blob}: entry is the
// engine's menu entry (lessons.json's "practice", or a lesson's "export"),
// global the object its program serves (uldpPractice, uldpExport), what
// the engine in words for a message, fn one of its functions, args their
// strings, and blob, if given, the type of a Blob to answer data in (a
// trace runs to tens of megabytes: made into a file here, it is handed to
// the page by reference, where a string would be copied and encoded on the
// page's thread). The worker answers {id, data} or {id, error}; down marks
// an error of the engine itself (it could not load, or stopped), not of
// what it was asked. An engine stays loaded for the next call; one that
// stopped is started afresh by the next.
"use strict";

importScripts("wasm_exec.js");

const engines = new Map(); // entry.module → Promise of {g: the engine's global object, go: its program}

async function boot(entry, global, what) {
  const res = await fetch(entry.module);
  if (!res.ok) throw new Error(`${entry.module}: ${res.status} ${res.statusText}`);
  const go = new Go();
  const ready = new Promise((resolve) => { self[global + "Ready"] = resolve; });
  let instance;
  try {
    ({ instance } = await WebAssembly.instantiateStreaming(res.clone(), go.importObject));
  } catch (err) {
    // A static host may not call the module application/wasm, which
    // streaming compilation insists on: compile it from its bytes.
    if (!(err instanceof TypeError)) throw err;
    ({ instance } = await WebAssembly.instantiate(await res.arrayBuffer(), go.importObject));
  }
  const ran = go.run(instance).then(() => { engines.delete(entry.module); });
  await Promise.race([ready, ran.then(() => { throw new Error(`${what} stopped as it started`); })]);
  return { g: self[global], go }; // kept: another engine's program may take the name next
}

self.onmessage = async (e) => {
  const { id, entry, global, what, fn, args, blob } = e.data;
  let g, go;
  try {
    if (!engines.has(entry.module)) {
      const started = boot(entry, global, what);
      started.catch(() => { engines.delete(entry.module); }); // a failed load may be retried
      engines.set(entry.module, started);
    }
    ({ g, go } = await engines.get(entry.module));
  } catch (err) {
    self.postMessage({ id, error: err.message, down: true });
    return;
  }
  try {
    const r = g[fn](...args);
    if (!r) throw new Error(g.lastError || `${what} failed`); // a panic, recovered
    self.postMessage(r.error ? { id, error: r.error } : { id, data: blob ? new Blob([r.data], { type: blob }) : r.data });
  } catch (err) {
    self.postMessage({ id, error: err.message, down: go.exited });
  }
};
