// What the page's workers (rehearse.js, compute.js) share: Go's loader,
// and openLesson, which starts a copy of a lesson from the module the page
// compiled.
"use strict";

importScripts("wasm_exec.js");

// openLesson starts the lesson's program from its compiled module and
// returns its bridge (the global uldp) once the program is ready.
async function openLesson(module) {
  const go = new Go();
  const ready = new Promise((resolve) => { self.uldpReady = resolve; });
  const instance = await WebAssembly.instantiate(module, go.importObject);
  // A program that exits or traps before it is ready would leave ready
  // waiting for good.
  const ran = go.run(instance).then(() => { throw new Error("the lesson's program stopped as it started"); });
  await Promise.race([ready, ran]);
  return self.uldp;
}
