-- ULDP Lab's class server: classes, the students who joined them, and every
-- answer a student submitted. Applied by `wrangler d1 migrations apply` on
-- Cloudflare D1 and by the server itself on SQLite (package site/class).
-- Times are Unix milliseconds. Tokens are stored as a public selector and
-- the SHA-256 of their secret part, never whole.

CREATE TABLE classes (
  id INTEGER PRIMARY KEY,
  code TEXT NOT NULL UNIQUE,       -- the join code students type
  selector TEXT NOT NULL UNIQUE,   -- the teacher token's public part
  verifier TEXT NOT NULL,          -- SHA-256 of its secret part, hex
  title TEXT NOT NULL,
  pack TEXT NOT NULL,              -- "builtin", or the pack's JSON
  addr TEXT NOT NULL,              -- a hash of the address it was created from (rate limits)
  created INTEGER NOT NULL
);
CREATE INDEX classes_by_addr ON classes (addr, created);

CREATE TABLE students (
  id INTEGER PRIMARY KEY,
  class INTEGER NOT NULL REFERENCES classes (id),
  name TEXT NOT NULL,              -- a name or a student id: the student's numbers follow from it
  selector TEXT NOT NULL UNIQUE,
  verifier TEXT NOT NULL,
  addr TEXT NOT NULL,
  joined INTEGER NOT NULL,
  UNIQUE (class, name)
);
CREATE INDEX students_by_addr ON students (addr, joined);

CREATE TABLE submissions (
  id INTEGER PRIMARY KEY,
  student INTEGER NOT NULL REFERENCES students (id),
  exercise TEXT NOT NULL,
  try INTEGER NOT NULL,            -- 1 for the first answer to the exercise
  request TEXT NOT NULL,           -- the page's id for the submission: a resent one is stored once
  answer TEXT NOT NULL,            -- the answer's JSON, as sent
  correct INTEGER NOT NULL,        -- 1 right, 0 not
  feedback TEXT NOT NULL,          -- the grading's words, explanation included
  variant TEXT NOT NULL,           -- the student's own numbers ("eps=0.7"), or ""
  spent INTEGER NOT NULL,          -- milliseconds the page had the exercise open before this answer
  at INTEGER NOT NULL,
  UNIQUE (student, request),
  UNIQUE (student, exercise, try)
);
CREATE INDEX submissions_by_time ON submissions (student, at);
