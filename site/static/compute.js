// The compute worker. A lesson whose computation takes seconds (the rates
// explorer's sweep of simulated runs) would otherwise run it on the page's
// thread a slice per frame, sharing each frame with the drawing. The page
// hands it here instead: this worker runs a copy of the lesson, restored
// to the page's state, computes on its own core, and sends what it has
// found every tenth of a second, which the page's copy adopts and shows.
//
// The page posts {module, state, key}: the compiled module, the lesson's
// state, and the key naming the computation (viz.Remote). The worker
// answers {key, data, done} until done, or {key, error}, with unrestorable
// set when its copy refuses the state or, restored to it, names another
// computation. A newer request replaces the one under way, and {cancel}
// ends it with nothing sent. The worker's
// copy stays, ready for the next computation, until the page leaves the
// lesson.
"use strict";

importScripts("lesson-worker.js");

let lesson = null; // the worker's copy: a promise of the bridge
let latest = 0; // the request under way; an older one's loop ends

// pause lets a newer request in between slices, without setTimeout's
// clamping to 4 ms. One wake for all: a loop parked here when a newer
// request pauses in turn is never woken, and ends there.
const pause = (() => {
  const ch = new MessageChannel();
  let wake = () => {};
  ch.port1.onmessage = () => wake();
  return () => new Promise((resolve) => { wake = resolve; ch.port2.postMessage(0); });
})();

self.onmessage = async (e) => {
  const me = ++latest;
  if (e.data.cancel) return; // the computation under way is left at its next pause
  const { module, state, key } = e.data;
  try {
    lesson ??= openLesson(module);
    const u = await lesson;
    if (me !== latest) return;
    const r = u.restore(state);
    if (typeof r !== "string") throw new Error("the state belongs to another module");
    // A setting the page's state cannot carry exactly (it refuses, or
    // names another computation): the page computes this one, and the
    // worker stays for the next.
    if (r !== "") {
      self.postMessage({ key, error: `restoring the page's state: ${r}`, unrestorable: true });
      return;
    }
    if (u.remoteKey() !== key) {
      self.postMessage({ key, error: "restored to the page's state, the worker's copy computes something else", unrestorable: true });
      return;
    }
    for (;;) {
      const t0 = performance.now();
      while (u.remoteKey() === key && performance.now() - t0 < 100) {
        u.tick(0);
        if (u.lastError) throw new Error(u.lastError);
      }
      const out = u.outcome();
      if (!out) throw new Error("the lesson has no outcome to send");
      self.postMessage({ key, data: out.data, done: out.done }, [out.data.buffer]);
      if (out.done) return;
      await pause();
      if (me !== latest) return;
    }
  } catch (err) {
    self.postMessage({ key, error: err.message });
  }
};
