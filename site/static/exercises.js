// Exercise mode: a pack's questions above the live lessons. app.js loads
// this script when the student has saved progress (EX_STORE) or first
// opens the exercises. The page holds
// the pack's sheet (questions, hints, choices: no keys); the server grades
// each answer once the student commits it (POST api/grade), running the
// lesson's own engine, and only then sends the explanation. Progress lives
// in this browser's localStorage; the hand-in is a JSON file the teacher
// grades afresh with `uldp grade`.
//
// With no server to ask (the site served as plain files), the page offers
// practice: the practice grader, the server's grading code with every
// lesson, runs in a Web Worker (textengine.js) and answers the same JSON.
// Its keys are in the student's browser, so its gradings say "practice".
//
// In a class (the student joined with the teacher's code), the class
// server keeps the sheet, the answers and their gradings: the page asks it
// for them (api/class/me) and sends each answer there (api/class/answer),
// under an id drawn before sending, so an answer resent after a lost reply
// is stored once.
"use strict";

// ex is the saved progress: the pack ("builtin", or a file's name and
// text), the student's name, the exercise open, and per exercise the
// answer committed, its grading and how many hints were shown.
let ex = null;
let sheet = null; // the pack's sheet for sheetFor, from the server
let sheetFor = ""; // the student whose own numbers the sheet shows

function exLoad() {
  let v = null;
  try { v = JSON.parse(localStorage.getItem(EX_STORE)) || null; } catch { return null; }
  if (v) { v.opened ||= {}; v.requests ||= {}; } // progress saved before classes
  return v;
}
function exSave() {
  try { localStorage.setItem(EX_STORE, JSON.stringify(ex)); } catch (err) {
    report("Your progress could not be saved in this browser (" + err.message + "): download your hand-in to keep it.");
  }
}
function fresh(pack) {
  return { pack, student: ex?.student || "", open: false, current: 0, answers: {}, results: {}, hints: {}, variants: true, practise: ex?.practise || false, opened: {}, requests: {} };
}

// inClass reports whether the student joined a class on this device:
// ex.klass is {code, title, key} then.
const inClass = () => !!ex?.klass;
// final reports whether a grading ends its exercise: always outside a
// class; in one, when right or out of tries.
const final = (r) => !!r && r.final !== false;

// unreachable is the error of a page no grading server answers.
function unreachable(why) {
  const err = new Error(why + ": exercises are graded by the ULDP Lab server (uldp serve)");
  err.unreachable = true;
  return err;
}

// api asks the server; its errors are JSON {"error": …}. A page served as
// plain files answers without JSON (404, or 501 to a POST).
async function api(path, body) {
  let res;
  try {
    res = await fetch(path, body === undefined ? {} : { method: "POST", headers: { "Content-Type": "application/json" }, body });
  } catch (err) {
    throw unreachable("the server cannot be reached (" + err.message + ")");
  }
  let v;
  try { v = await res.json(); } catch {
    throw unreachable(`the server answered ${res.status} without JSON`);
  }
  if (!res.ok) {
    const err = new Error(v.error || `the server answered ${res.status}`);
    err.status = res.status;
    throw err;
  }
  return v;
}

// ---------------------------------------------------------------- practice

let practice = false; // this page grades in the browser: no server answered, and the student chose to practise
const practiceWorker = textWorker("uldpPractice", "the practice grader");

// practised asks the practice grader (starting its worker on first use)
// what the server's API would answer. A grader that cannot load or has
// stopped rejects as unreachable, as a server that does not answer.
const PRACTICE_LIMIT = 120000; // ms a grading may take: the server allows 30 s on native code

async function practised(fn, ...args) {
  await menuLoaded; // which names the grader's module
  if (!practiceEngine) throw unreachable("this copy of ULDP Lab has no practice grader");
  // Only a grading is timed: the first call also downloads the grader.
  const limit = fn === "grade" ? { ms: PRACTICE_LIMIT, message: `grading took longer than ${PRACTICE_LIMIT / 60000} minutes in this browser: the answer's state asks the lesson for too much work; try smaller settings` } : undefined;
  try {
    return JSON.parse(await practiceWorker(practiceEngine, fn, args, { limit }));
  } catch (err) {
    err.unreachable = !!err.down;
    throw err;
  }
}

// sheetFrom asks the server, or the practice grader, for who's sheet.
function sheetFrom(who) {
  if (practice) return practised("sheet", ex.pack === "builtin" ? JSON.stringify("builtin") : ex.pack.text, who);
  const q = "?student=" + encodeURIComponent(who);
  return ex.pack === "builtin" ? api("api/pack" + q) : api("api/pack" + q, ex.pack.text);
}

// gradeOf asks the server, or the practice grader, to grade a request.
const gradeOf = (body) => practice ? practised("grade", body) : api("api/grade", body);

function packRef() { return ex.pack === "builtin" ? "builtin" : JSON.parse(ex.pack.text); }
function packTitle() { return sheet ? sheet.title : ""; }
// student is the name as the sheet, the grader and the hand-in all read
// it: exercises that vary a setting give each name its own numbers.
const student = () => ex.student.trim();
const answeredAny = () => Object.keys(ex.results).length > 0;

// loadSheet asks for the sheet of the pack and the name as they are now;
// a reply to an older request (the name or the pack changed meanwhile)
// is dropped.
let sheetLoads = 0;
// With no server, a student who chose to practise gets the practice
// grader's sheet; one who has not yet chosen gets the error, marked
// unreachable, and the dialog offers practice.
async function loadSheet() {
  if (inClass()) return loadClass();
  const mine = ++sheetLoads, who = student();
  let s;
  try {
    s = await sheetFrom(who);
  } catch (err) {
    if (!err.unreachable || !ex.practise) throw err;
    practice = true;
    try {
      s = await sheetFrom(who);
    } catch (perr) {
      if (perr.unreachable) practice = false; // the dialog offers it again, saying why
      throw perr;
    }
  }
  if (mine !== sheetLoads) return;
  sheet = s;
  sheetFor = who;
  forgetStale();
}

// loadClass brings the class's sheet and the student's answers from the
// class server, which keeps them: another device's answers show here too.
async function loadClass() {
  const mine = ++sheetLoads;
  let s;
  try {
    s = await api("api/class/me");
  } catch (err) {
    if (err.status !== 401) throw err;
    // The cookie is gone (cleared, expired, or another site's doing): the
    // key kept here brings it back. Only a key the server refuses ends
    // the class on this device.
    try {
      if (!ex.klass.key) throw err;
      s = await api("api/class/resume", JSON.stringify({ token: ex.klass.key }));
    } catch (rerr) {
      if (rerr.status !== 401 && rerr.status !== 404) throw rerr;
      const title = ex.klass.title;
      ex = fresh("builtin");
      sheet = null;
      exSave();
      rerr.message = `you are no longer in the class “${title}” on this device (${rerr.message}); your answers stay on the class server`;
      throw rerr;
    }
  }
  if (mine !== sheetLoads) return;
  adopt(s);
}

// adopt takes a class session (api/class/me, join, resume) as this page's
// state: the class's sheet, the student's name, and the server's answers
// and gradings in place of any kept here.
function adopt(s) {
  ex.klass = { code: s.code, title: s.class, key: s.token || ex.klass?.key || "" };
  ex.pack = "builtin"; // the class's pack: the server has it
  ex.student = s.student;
  ex.answers = {}; ex.results = {};
  for (const [id, p] of Object.entries(s.progress)) {
    ex.answers[id] = p.answer;
    ex.results[id] = { correct: p.correct, feedback: p.feedback, final: p.final, tries: p.tries };
  }
  sheet = s.sheet;
  sheetFor = s.student;
  ex.current = Math.min(ex.current, sheet.exercises.length - 1);
  exSave();
}

// forgetStale drops answers saved before exercises had numbers of each
// student's own: they were graded on numbers the student no longer sees.
function forgetStale() {
  if (ex.variants) return;
  for (const q of sheet.exercises) {
    if (q.varies) { delete ex.answers[q.id]; delete ex.results[q.id]; }
  }
  ex.variants = true;
  exSave();
}

// freshSheet reloads the sheet when the name changed since: an exercise
// must not show one student's numbers and be graded on another's.
async function freshSheet() {
  if (sheet && (inClass() || sheetFor === student())) return;
  await loadSheet();
}

const question = () => sheet.exercises[ex.current];
const lessonTitle = (name) => menu.find((l) => l.name === name)?.title || name;
const withoutScene = (state) => state.replace(/^#?scene=[^&]*&?/, "");

function score() {
  let right = 0, answered = 0;
  for (const q of sheet.exercises) {
    const r = ex.results[q.id];
    if (final(r)) { answered++; if (r.correct) right++; }
  }
  return { right, answered, total: sheet.exercises.length };
}

// ---------------------------------------------------------------- the bar

function syncBar() {
  const bar = $("exercise");
  bar.hidden = !(ex && ex.open && sheet);
  $("exercises-open").textContent = ex && sheet ? `Exercises ${score().right}/${sheet.exercises.length}` : "Exercises";
  if (bar.hidden) return;
  const q = question(), s = score();
  $("ex-title").textContent = `Exercise ${ex.current + 1} of ${s.total} · ${lessonTitle(q.lesson)}`;
  $("ex-score").textContent = `score ${s.right} of ${s.total} (${s.answered} answered)`;
  $("ex-prev").disabled = ex.current === 0;
  $("ex-next").disabled = ex.current === s.total - 1;
  $("ex-question").textContent = q.question;
  $("ex-practice-note").hidden = !practice;
  $("ex-own").hidden = !q.varies;
  const shown = ex.hints[q.id] || 0, hints = q.hints || [];
  $("ex-hints").replaceChildren(...hints.slice(0, shown).map((h) => { const li = document.createElement("li"); li.textContent = h; return li; }));
  $("ex-hint").hidden = shown >= hints.length;
  $("ex-hint").textContent = hints.length > 1 ? `Hint (${shown + 1} of ${hints.length})` : "Hint";
  const r = ex.results[q.id], fb = $("ex-feedback");
  fb.hidden = !r;
  if (r) { fb.textContent = (r.practice ? "Practice grading: " : "") + r.feedback; fb.className = "ex-feedback " + (r.correct ? "right" : "wrong"); }
  buildAnswer(q, final(r) ? r : null);
}

// buildAnswer lays out the answer's inputs for the exercise's kind, or the
// committed answer once graded.
function buildAnswer(q, graded) {
  const form = $("ex-answer");
  const typed = form.dataset.id === q.id ? $("ex-number")?.value : ""; // kept across a rebuild
  form.replaceChildren();
  form.dataset.kind = q.kind;
  form.dataset.id = q.id;
  const commit = document.createElement("button");
  commit.type = "submit";
  const note = (text) => { const p = document.createElement("span"); p.className = "note"; p.textContent = text; return p; };
  const here = current === q.lesson;
  switch (q.kind) {
  case "numeric":
  case "predict": {
    const input = document.createElement("input");
    input.type = "number"; input.step = "any"; input.id = "ex-number"; input.required = true;
    input.setAttribute("aria-label", "your answer");
    if (graded) { input.value = ex.answers[q.id]; input.disabled = true; } else if (typed) input.value = typed;
    commit.textContent = q.kind === "predict" ? "Commit my prediction" : "Check my answer";
    form.append(input, commit, note(q.tolerance ? `counts ${q.tolerance}` : ""));
    if (q.kind === "predict" && !graded) form.append(note("then step the lesson to see it happen"));
    break;
  }
  case "choice": {
    const set = document.createElement("fieldset");
    const legend = document.createElement("legend"); legend.className = "note"; legend.textContent = "choose one"; legend.hidden = true;
    set.append(legend);
    q.choices.forEach((c, i) => {
      const label = document.createElement("label");
      const radio = document.createElement("input");
      radio.type = "radio"; radio.name = "ex-choice"; radio.value = String(i); radio.required = true;
      if (graded) { radio.disabled = true; radio.checked = ex.answers[q.id] === i; }
      label.append(radio, " " + c);
      set.append(label);
    });
    commit.textContent = "Check my answer";
    form.append(set, commit);
    break;
  }
  case "manipulate":
    commit.textContent = "Submit the lesson as it is now";
    form.append(commit, note(here ? `goal: ${q.goal}, at the run's end` : `open the lesson “${lessonTitle(q.lesson)}” to answer`));
    commit.disabled = !here;
    break;
  case "find-the-bug":
    commit.textContent = "Submit the variant and pair under audit";
    form.append(commit, note(here ? "set the lab's broken variant and a pair that catches it" : `open the lesson “${lessonTitle(q.lesson)}” to answer`));
    commit.disabled = !here;
    break;
  }
  if (graded) { commit.disabled = true; commit.textContent = graded.correct ? "Answered: right" : "Answered"; }
  const r = ex.results[q.id];
  if (!graded && r && inClass()) form.append(note(`try ${r.tries + 1} of ${sheet.tries}`));
}

// answerOf reads the student's answer from the form, or says what is missing.
function answerOf(q) {
  switch (q.kind) {
  case "numeric":
  case "predict": {
    const v = $("ex-number").value.trim();
    if (v === "" || !Number.isFinite(Number(v))) throw new Error("write a number first");
    return Number(v);
  }
  case "choice": {
    const c = document.querySelector("input[name=ex-choice]:checked");
    if (!c) throw new Error("choose one of the answers first");
    return Number(c.value);
  }
  case "manipulate": {
    const a = { state: withoutScene(uldp.state()) };
    // Dragged users live in the dataset, not in the link: send them along.
    if (uldp.canExport()?.csv) a.data = uldp.exportCSV().data || "";
    return a;
  }
  case "find-the-bug": {
    const state = withoutScene(uldp.state());
    const mutant = new URLSearchParams(state).get("mutant") || "";
    if (!mutant || mutant === "none") throw new Error("set the lab's “broken variant” to the one you suspect first");
    return { mutant, state };
  }
  }
  throw new Error(`this page cannot answer exercises of kind “${q.kind}”`);
}

let grading = false;
async function commitAnswer(e) {
  e.preventDefault();
  const q = question();
  if (grading || final(ex.results[q.id])) return;
  let answer;
  try { answer = answerOf(q); } catch (err) { report(err.message); return; }
  if (!inClass() && !student() && sheet.exercises.some((x) => x.varies)) {
    report("Type your name in the exercise list first (All exercises): your numbers follow from it, and the teacher grades your hand-in by it.");
    return;
  }
  grading = true;
  $("ex-student").readOnly = true; // the name this answer is graded under
  const form = $("ex-answer");
  const button = form.querySelector("button[type=submit]");
  button.disabled = true; button.textContent = "grading…";
  try {
    if (inClass()) {
      await answerInClass(q, answer);
    } else {
      await freshSheet();
      if (sheetFor !== student() || question().question !== q.question) throw new Error("your name changed the exercise's numbers: read it again and answer anew");
      const v = await gradeOf(JSON.stringify({ pack: packRef(), student: sheetFor, answers: { [q.id]: answer } }));
      ex.answers[q.id] = answer;
      ex.results[q.id] = { correct: v.results[0].correct, feedback: v.results[0].feedback };
      if (practice) ex.results[q.id].practice = true;
    }
    exSave();
  } catch (err) {
    report("Your answer could not be graded: " + err.message);
  } finally {
    grading = false;
    $("ex-student").readOnly = inClass() || answeredAny();
    syncBar();
  }
}

// answerInClass sends an answer to the class server. Its id is drawn and
// kept before sending: if the reply is lost, the same answer sent again
// is the same submission, and the server answers it from the store.
async function answerInClass(q, answer) {
  let pending = ex.requests[q.id];
  if (!pending || JSON.stringify(pending.answer) !== JSON.stringify(answer)) {
    pending = { request: crypto.randomUUID(), answer };
    ex.requests[q.id] = pending;
    exSave();
  }
  const spent = Math.max(0, Date.now() - (ex.opened[q.id] || Date.now()));
  let v;
  try {
    v = await api("api/class/answer", JSON.stringify({ id: q.id, answer, request: pending.request, spent }));
  } catch (err) {
    // Final already (another device answered it): the server's word.
    if (err.status === 409) await loadClass().catch(() => {});
    throw err;
  }
  delete ex.requests[q.id];
  if (!v.stored) {
    // Stored before (a resend): the server's record of the exercise
    // stands, which may have moved on since.
    await loadClass();
    return;
  }
  ex.answers[q.id] = answer;
  ex.results[q.id] = { correct: v.correct, feedback: v.feedback, final: v.final, tries: v.try };
}

// openExercise shows exercise i and opens its lesson as it starts: a fresh
// engine, so settings of earlier exploring do not carry over.
async function openExercise(i) {
  // Awaited only when the name changed since the sheet came: otherwise
  // the exercise shows at once, as the caller expects (it moves the focus
  // to the question next).
  if (sheetFor !== student()) {
    try { await loadSheet(); } catch (err) { report("The exercises could not load: " + err.message); return; }
  }
  ex.current = Math.max(0, Math.min(i, sheet.exercises.length - 1));
  ex.open = true;
  ex.opened ||= {};
  ex.opened[question().id] ||= Date.now(); // the time spent counts from the first opening
  exSave();
  syncBar();
  const q = question();
  await start(q.lesson, "scene=" + q.lesson + (q.state ? "&" + q.state : ""));
}

// ---------------------------------------------------------------- the dialog

// syncDialog shows the sheet, or with none (no server answered and the
// student has not chosen to practise) the offer to practise.
function syncDialog() {
  const offer = !sheet;
  $("ex-offline").hidden = !offer;
  $("ex-dialog").setAttribute("aria-describedby", offer ? "ex-offline" : "ex-summary");
  for (const id of ["ex-summary", "ex-items", "ex-actions"]) $(id).hidden = offer;
  $("ex-pack").value = ex.pack === "builtin" ? "builtin" : "file";
  $("ex-student").value = ex.student;
  // The name picks the student's own numbers, so it is fixed once an
  // answer is graded with them, and in a class is the one joined with.
  $("ex-student").readOnly = inClass() || answeredAny();
  $("ex-pack").closest("label").hidden = inClass(); // the class's pack: the summary names it
  $("ex-student-note").hidden = !answeredAny() || inClass();
  syncClass();
  if (offer) return;
  const s = score();
  const rule = !inClass() || sheet.tries <= 1 ? "An answer is final once checked, and its explanation comes with the grading."
    : `You have ${sheet.tries} tries at each exercise; the explanation comes once your answer is right or your tries are used.`;
  $("ex-summary").textContent = (practice ? "Practice, graded in this browser and not for marks. " : "") +
    (inClass() ? `Class “${ex.klass.title}”: your answers are kept by the class server. ` : "") +
    `${packTitle()}: ${s.right} right of ${s.total} (${s.answered} answered). Open an exercise to work on it in its lesson. ${rule}`;
  $("ex-items").replaceChildren(...sheet.exercises.map((q, i) => {
    const li = document.createElement("li");
    const r = final(ex.results[q.id]) ? ex.results[q.id] : null;
    const mark = document.createElement("span");
    mark.className = "mark" + (r ? (r.correct ? " right" : " wrong") : "");
    // The sign is for the eye; the words, hidden, for a screen reader (a
    // span may not carry an aria-label).
    const sign = document.createElement("span");
    sign.setAttribute("aria-hidden", "true");
    sign.textContent = r ? (r.correct ? "✓" : "✗") : "";
    const words = document.createElement("span");
    words.className = "visually-hidden";
    words.textContent = r ? (r.correct ? "right: " : "wrong: ") : "not answered: ";
    mark.append(sign, words);
    const b = document.createElement("a");
    b.href = "#scene=" + q.lesson; b.textContent = q.question.length > 90 ? q.question.slice(0, 88) + "…" : q.question;
    // The question takes the focus (closing the dialog hands it back to
    // the Exercises button), so a screen reader reads it out.
    b.addEventListener("click", (e) => { e.preventDefault(); $("ex-dialog").close(); openExercise(i); $("ex-question").focus(); });
    const lesson = document.createElement("span");
    lesson.className = "lesson-name"; lesson.textContent = ` — ${lessonTitle(q.lesson)}, ${q.kind}`;
    li.append(mark, b, lesson);
    return li;
  }));
}

async function showDialog() {
  if (!ex) ex = fresh("builtin");
  try {
    if (!sheet) await loadSheet();
  } catch (err) {
    // With no server, the dialog offers practice instead of the sheet
    // (again, saying why, if the practice grader failed).
    if (!err.unreachable) {
      report("The exercises could not load: " + err.message);
      return;
    }
    $("ex-practise-status").textContent = ex.practise ? "Practice could not start: " + err.message : "";
  }
  syncDialog();
  if (!$("ex-dialog").open) $("ex-dialog").showModal();
}

async function pickFile(file) {
  const text = await file.text();
  const before = { ex, sheet };
  ex = fresh({ name: file.name, text });
  try {
    await loadSheet();
  } catch (err) {
    if (err.unreachable && !practice) {
      // Nothing to check the pack with yet: the dialog offers practice,
      // which reads it.
      sheet = null;
      exSave();
      syncDialog();
      return;
    }
    ({ ex, sheet } = before);
    report(`The pack ${file.name} cannot be used: ${err.message}`);
    syncDialog();
    return;
  }
  exSave();
  syncDialog();
  syncBar();
}

// practise starts practice: the practice grader loads (once) and
// brings the sheet.
async function practise() {
  const button = $("ex-practise"), status = $("ex-practise-status");
  button.disabled = true;
  const mb = practiceEngine ? ` (a ${(practiceEngine.brotli / 1e6).toFixed(1)}–${(practiceEngine.bytes / 1e6).toFixed(1)} MB download, once)` : "";
  status.textContent = "Preparing the practice grader" + mb + "…";
  try {
    ex.practise = true;
    practice = true;
    await loadSheet();
    exSave();
    status.textContent = "";
    syncDialog();
    syncBar();
    $("ex-items").querySelector("a")?.focus();
  } catch (err) {
    ex.practise = false;
    practice = false;
    status.textContent = "Practice could not start: " + err.message;
  } finally {
    button.disabled = false;
    if (!practice) button.focus(); // it lost the focus when disabled
  }
}

// syncClass shows the class the student is in, or how to join one.
function syncClass() {
  $("ex-class-out").hidden = inClass();
  $("ex-class-in").hidden = !inClass();
  if (!inClass()) return;
  $("ex-class-status").textContent = `You are in the class “${ex.klass.title}” (code ${ex.klass.code}) as ${ex.student}. Each answer you check is sent to the class server and counts for marks.`;
  $("ex-key-show").textContent = ex.klass.key || "(shown on the device you joined on)";
}

// joinClass joins (body {code, name}) or continues (body {token}) a class,
// then shows its sheet.
async function joinClass(path, body, button) {
  const msg = $("ex-class-msg");
  if (!inClass() && answeredAny() && !confirm("In a class, your answers are the class server's: the answers kept in this browser are set aside. Download your hand-in first to keep them. Join the class?")) return;
  button.disabled = true;
  msg.textContent = "Joining…";
  try {
    const s = await api(path, JSON.stringify(body));
    ex = fresh("builtin");
    adopt(s);
    msg.textContent = `Joined “${s.class}” as ${s.student}.`;
    syncDialog();
    syncBar();
    $("ex-items").querySelector("a")?.focus();
  } catch (err) {
    msg.textContent = (err.unreachable ? "No class server answers this page: " : "Could not join: ") + err.message;
  } finally {
    button.disabled = false;
  }
}

async function leaveClass() {
  if (!confirm("Leave the class on this device? Your answers stay on the class server. To continue later, here or elsewhere, copy your key first (“Your key for another device”): this device forgets it.")) return;
  try { await api("api/class/leave", "{}"); } catch (err) { report("Could not leave the class: " + err.message); return; }
  const title = ex.klass.title;
  ex = fresh("builtin");
  ex.student = "";
  sheet = null;
  exSave();
  $("ex-class-msg").textContent = `You left “${title}” on this device.`;
  await showDialog();
  syncBar();
}

function handin() {
  const name = student();
  const data = JSON.stringify({ pack: packTitle(), student: name, answers: ex.answers }, null, 2) + "\n";
  const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");
  download(`uldp-handin${slug ? "-" + slug : ""}.json`, data, "application/json");
}

function wireExercises() {
  // The Exercises button is app.js's: it loads this script first.
  $("ex-list").addEventListener("click", showDialog);
  $("ex-prev").addEventListener("click", () => openExercise(ex.current - 1));
  $("ex-next").addEventListener("click", () => openExercise(ex.current + 1));
  $("ex-leave").addEventListener("click", () => { ex.open = false; exSave(); syncBar(); });
  $("ex-restart").addEventListener("click", () => openExercise(ex.current));
  $("ex-hint").addEventListener("click", () => {
    const q = question();
    ex.hints[q.id] = Math.min((ex.hints[q.id] || 0) + 1, (q.hints || []).length);
    exSave(); syncBar();
  });
  $("ex-answer").addEventListener("submit", commitAnswer);
  // A new name brings its own numbers: the sheet follows once typing
  // pauses, and before any exercise opens or is graded (freshSheet).
  let renaming = 0;
  $("ex-student").addEventListener("input", (e) => {
    if (inClass() || answeredAny() || grading) { e.target.value = ex.student; return; } // read-only by then
    ex.student = e.target.value; exSave();
    clearTimeout(renaming);
    if (!sheet && !practice) return; // practice is on offer: its sheet comes with it
    renaming = setTimeout(() => freshSheet().then(() => { syncDialog(); syncBar(); }, (err) => report("The exercises could not load: " + err.message)), 300);
  });
  $("ex-pack").addEventListener("change", (e) => {
    if (e.target.value === "file") { $("ex-file").click(); syncDialog(); return; }
    if (ex.pack !== "builtin" && !confirm("Switch to ULDP Lab's own pack? Your answers to this pack are kept only in your hand-in: download it first.")) { syncDialog(); return; }
    ex = fresh("builtin"); sheet = null;
    showDialog().then(syncBar);
  });
  $("ex-file").addEventListener("change", (e) => { if (e.target.files[0]) pickFile(e.target.files[0]); e.target.value = ""; });
  $("ex-handin").addEventListener("click", handin);
  $("ex-practise").addEventListener("click", practise);
  $("ex-join").addEventListener("submit", (e) => {
    e.preventDefault();
    joinClass("api/class/join", { code: $("ex-code").value.trim(), name: $("ex-join-name").value.trim() }, e.submitter || $("ex-join").querySelector("button"));
  });
  $("ex-resume").addEventListener("submit", (e) => {
    e.preventDefault();
    joinClass("api/class/resume", { token: $("ex-key").value.trim() }, e.submitter || $("ex-resume").querySelector("button"));
  });
  $("ex-class-leave").addEventListener("click", leaveClass);
  $("ex-reset").addEventListener("click", () => {
    if (inClass()) { report("In a class, your answers are kept by the class server: they cannot be started over here."); return; }
    if (!confirm("Start this pack over? Every answer here is forgotten (download your hand-in first to keep it).")) return;
    ex = fresh(ex.pack); exSave(); syncDialog(); syncBar();
  });
  // [ and ] page through the exercises, unless typing somewhere.
  document.addEventListener("keydown", (e) => {
    const t = e.target;
    if (!ex?.open || !sheet || e.ctrlKey || e.metaKey || e.altKey) return;
    if (t instanceof HTMLInputElement || t instanceof HTMLSelectElement || t instanceof HTMLTextAreaElement) return;
    if (e.key === "[" && ex.current > 0) { e.preventDefault(); openExercise(ex.current - 1); }
    if (e.key === "]" && ex.current < sheet.exercises.length - 1) { e.preventDefault(); openExercise(ex.current + 1); }
  });
  // A lesson switch enables or disables the answers that need its lesson.
  document.addEventListener("uldp:lesson", syncBar);
}

async function mainExercises() {
  wireExercises();
  ex = exLoad();
  if (!ex) return;
  try {
    await loadSheet();
  } catch (err) {
    // With no server, opening the exercises offers practice.
    if (!err.unreachable) report("Your exercises could not load: " + err.message);
    return;
  }
  if (!sheet) return; // a newer load (the name typed meanwhile) shows it
  ex.current = Math.min(ex.current, sheet.exercises.length - 1);
  syncBar();
}

mainExercises();
