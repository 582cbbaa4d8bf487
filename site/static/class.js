// The teacher's dashboard: a class's progress as the class server keeps
// it (api/class/dashboard), refreshed while the class works, and its
// gradebook as CSV. The teacher's token travels in the Authorization
// header only, and this tab keeps it (sessionStorage) until it closes.
"use strict";

const $ = (id) => document.getElementById(id);
const TOKEN = "uldp.teacher";
let token = sessionStorage.getItem(TOKEN) || "";
let timer = 0, lastAnswers = -1, loading = false;
let every = 10000; // the server says how often (a Worker's D1 counts every read)

// api asks the class server as the teacher; errors are JSON {"error": …}.
async function api(path, init = {}) {
  init.headers = { ...(init.headers || {}), ...(token ? { Authorization: "Bearer " + token } : {}) };
  let res;
  try {
    res = await fetch(path, init);
  } catch (err) {
    throw new Error("the server cannot be reached (" + err.message + ")");
  }
  if (res.ok) return res;
  let msg = `the server answered ${res.status}`;
  try { msg = (await res.json()).error || msg; } catch { /* not JSON: a server without classes */ }
  const err = new Error(msg);
  err.status = res.status;
  throw err;
}

// showError shows msg (an alert), or hides the last; the same message
// again is left alone, so a screen reader hears it once, not every
// refresh while the server is down.
function showError(msg) {
  if ($("dash-error").textContent === msg && $("dash-error").hidden === !msg) return;
  $("dash-error").textContent = msg;
  $("dash-error").hidden = !msg;
}

const pct = (n, of) => of > 0 ? Math.round(100 * n / of) + "%" : "—";

// duration writes seconds as people read them: "45 s", "3 min 5 s".
function duration(s) {
  if (!(s > 0)) return "—";
  if (s < 60) return Math.round(s) + " s";
  const m = Math.floor(s / 60), r = Math.round(s - 60 * m);
  return r ? `${m} min ${r} s` : `${m} min`;
}

const clock = (ms) => ms ? new Date(ms).toLocaleTimeString() : "never";

function cell(text, cls) {
  const td = document.createElement("td");
  td.textContent = text;
  if (cls) td.className = cls;
  return td;
}

// share is a count, its share in words, and a bar for the eye (the words
// carry it; the bar only repeats them).
function share(n, of) {
  const td = cell(`${n} of ${of} (${pct(n, of)})`, "num");
  const bar = document.createElement("span");
  bar.className = "dash-bar";
  bar.setAttribute("aria-hidden", "true");
  const fill = document.createElement("span");
  fill.style.width = of > 0 ? (100 * n / of) + "%" : "0";
  bar.append(fill);
  td.append(bar);
  return td;
}

function render(d) {
  $("dash-title").textContent = `Class dashboard: ${d.title}`;
  document.title = `${d.title} — class dashboard — ULDP Lab`;
  $("dash-code").textContent = d.code;
  const n = d.students.length;
  $("dash-counts").textContent = `${n} ${n === 1 ? "student" : "students"} joined · ${d.answers} ${d.answers === 1 ? "answer" : "answers"} · pack “${d.pack}”, ${d.tries === 1 ? "one try" : d.tries + " tries"} per exercise`;
  $("dash-exercises").tBodies[0].replaceChildren(...d.exercises.map((x, i) => {
    const tr = document.createElement("tr");
    const q = cell(x.question.length > 140 ? x.question.slice(0, 138) + "…" : x.question);
    q.title = x.question;
    const lesson = document.createElement("span");
    lesson.className = "lesson";
    lesson.textContent = `${x.lesson}, ${x.kind}` + (x.varies ? " · each student's own numbers in {braces}" : "");
    q.append(lesson);
    const wrong = x.wrong.length ? x.wrong.map((w) => `${w.answer} (${w.students})`).join("; ") : (x.kind === "manipulate" ? "states: see the gradebook" : "—");
    tr.append(cell(String(i + 1), "num"), q, share(x.answered, n), share(x.right, x.answered), cell(wrong), cell(duration(x.median_seconds), "num"));
    return tr;
  }));
  $("dash-students").tBodies[0].replaceChildren(...d.students.map((s) => {
    const tr = document.createElement("tr");
    tr.append(cell(s.name), cell(`${s.answered} of ${d.exercises.length}`, "num"), cell(String(s.right), "num"), cell(clock(s.last), "num"));
    return tr;
  }));
  // The time is shown; only new answers are announced (a status), not
  // every refresh.
  const n2 = d.answers - lastAnswers;
  const news = lastAnswers >= 0 && n2 > 0 ? `${n2} new ${n2 === 1 ? "answer" : "answers"}` : "";
  $("dash-updated").textContent = `Updated ${clock(d.updated)}${news ? " · " + news : ""}`;
  if (news) $("dash-news").textContent = news;
  lastAnswers = d.answers;
  if (d.refresh_seconds > 0 && d.refresh_seconds * 1000 !== every) {
    every = d.refresh_seconds * 1000;
    $("dash-every").textContent = duration(d.refresh_seconds);
    schedule();
  }
}

async function refresh() {
  if (loading || !token) return;
  loading = true;
  try {
    const d = await (await api("api/class/dashboard")).json();
    showError("");
    $("dash-open").hidden = true;
    $("dash-view").hidden = false;
    render(d);
  } catch (err) {
    if (err.status === 401) {
      closeClass();
      showError("That token opens no class: " + err.message);
      $("dash-token").focus();
    } else {
      showError("The dashboard could not refresh: " + err.message + (err.status ? "" : " (it tries again)"));
    }
  } finally {
    loading = false;
  }
}

// schedule refreshes while the box is ticked and the tab is in view.
function schedule() {
  clearInterval(timer);
  timer = 0;
  if (token && $("dash-auto").checked && !document.hidden) timer = setInterval(refresh, every);
}

async function openClass(t) {
  token = t.trim();
  sessionStorage.setItem(TOKEN, token);
  lastAnswers = -1;
  await refresh();
  schedule();
  if (!$("dash-view").hidden) $("dash-title").focus();
}

function closeClass() {
  token = "";
  sessionStorage.removeItem(TOKEN);
  clearInterval(timer);
  $("dash-view").hidden = true;
  $("dash-open").hidden = false;
  $("dash-title").textContent = "Class dashboard";
}

async function exportCSV() {
  try {
    const res = await api("api/class/gradebook");
    const name = (res.headers.get("Content-Disposition") || "").match(/filename="([^"]+)"/)?.[1] || "uldp-gradebook.csv";
    const url = URL.createObjectURL(await res.blob());
    const a = document.createElement("a");
    a.href = url; a.download = name;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  } catch (err) {
    showError("The gradebook could not be downloaded: " + err.message);
  }
}

async function create(e) {
  e.preventDefault();
  const button = e.submitter || $("dash-create-form").querySelector("button");
  let pack = "builtin";
  if ($("dash-new-pack").value === "file") {
    const file = $("dash-new-file").files[0];
    if (!file) { $("dash-new-file").click(); return; }
    try { pack = JSON.parse(await file.text()); } catch (err) { showError(`${file.name} is not JSON: ${err.message}`); return; }
  }
  button.disabled = true;
  try {
    const res = await api("api/class", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ title: $("dash-new-title").value.trim(), pack }) });
    const c = await res.json();
    showError("");
    $("dash-created-code").textContent = c.code;
    $("dash-created-token").textContent = c.teacher;
    $("dash-created").hidden = false;
    await openClass(c.teacher);
    $("dash-created").focus();
  } catch (err) {
    showError("The class could not be created: " + err.message);
  } finally {
    button.disabled = false;
  }
}

$("dash-token-form").addEventListener("submit", (e) => { e.preventDefault(); openClass($("dash-token").value); });
$("dash-create-form").addEventListener("submit", create);
$("dash-new-pack").addEventListener("change", (e) => { if (e.target.value === "file") $("dash-new-file").click(); });
$("dash-refresh").addEventListener("click", refresh);
$("dash-auto").addEventListener("change", schedule);
$("dash-export").addEventListener("click", exportCSV);
$("dash-close").addEventListener("click", () => { closeClass(); $("dash-token").focus(); });
document.addEventListener("visibilitychange", () => { schedule(); if (!document.hidden) refresh(); });
$("dash-title").tabIndex = -1;
if (token) openClass(token);
