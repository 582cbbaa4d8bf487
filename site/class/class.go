// Package class is the class server's store: classes, the students who
// joined them, and every answer submitted, behind database/sql. One schema
// (migrations/*.sql) and one code path serve embedded SQLite natively and
// Cloudflare D1 at the edge.
//
// D1 runs no transactions, so every change is a single statement, and a
// rule that spans rows (an exercise's tries, a resent submission) is that
// statement's own WHERE or UNIQUE clause: SQLite runs a statement
// atomically, on D1 as on a file. A change is committed when the statement
// returns, before the caller answers anyone.
package class

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"database/sql"
	"embed"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/uldplab/uldp/core/exercise"
)

// Migrations are the schema's SQL files, applied in the order of their
// names: by `wrangler d1 migrations apply` on D1 (the Worker's
// wrangler.jsonc names this directory) and by Migrate on SQLite.
//
//go:embed migrations/*.sql
var Migrations embed.FS

// Limits that keep one address or one student from filling the store.
const (
	// MaxTitle bounds a class's title, in bytes.
	MaxTitle = 200
	// MaxStudents bounds a class.
	MaxStudents = 2000
	// ClassesPerHour bounds the classes created from one address in an
	// hour.
	ClassesPerHour = 20
	// JoinsPer10Min bounds the students joining from one address in ten
	// minutes: a lecture hall behind one router joins at once.
	JoinsPer10Min = 600
	// AnswersPerMinute bounds one student's submissions in a minute.
	AnswersPerMinute = 60
	// MaxRequest bounds a submission's request id.
	MaxRequest = 64
)

// Errors a caller tells apart: each is answered with its own status.
var (
	// ErrNotFound is a join code, token or class that names nothing.
	ErrNotFound = errors.New("not found")
	// ErrNameTaken is a join under a name the class already has.
	ErrNameTaken = errors.New("name taken")
	// ErrFinal is an answer to an exercise whose answer is final: right
	// already, or out of tries.
	ErrFinal = errors.New("final")
	// ErrTooMany is a request over a rate limit.
	ErrTooMany = errors.New("too many")
	// ErrFull is a join to a class of MaxStudents.
	ErrFull = errors.New("class full")
)

// InputError is a refusal of what a client sent (a title, a name), as
// opposed to the store failing: its message names the field.
type InputError struct{ Err error }

func (e InputError) Error() string { return e.Err.Error() }

func invalid(format string, args ...any) error { return InputError{fmt.Errorf(format, args...)} }

// Store keeps classes in a database with the schema of Migrations.
type Store struct {
	db *sql.DB
	// Now is the clock (a variable for tests).
	Now func() time.Time
}

// New is a store in db, whose schema is already applied (Migrate).
func New(db *sql.DB) *Store { return &Store{db: db, Now: time.Now} }

// Class is one class.
type Class struct {
	ID int64
	// Code is what students type to join.
	Code  string
	Title string
	// Pack is "builtin" or the pack's JSON.
	Pack    string
	Created time.Time
}

// Student is one student of a class.
type Student struct {
	ID, Class int64
	// Name is the name or student id the student joined with: their own
	// numbers follow from it (exercise.Pack.For).
	Name   string
	Joined time.Time
}

// Submission is one answer as stored.
type Submission struct {
	Student  int64
	Exercise string
	// Try is 1 for the student's first answer to the exercise.
	Try int
	// Request is the page's id for the submission: one resent (the answer
	// lost on the way back) is stored once.
	Request  string
	Answer   json.RawMessage
	Correct  bool
	Feedback string
	Variant  string
	// Spent is how long the page had the exercise open before this
	// answer.
	Spent time.Duration
	At    time.Time
}

// CreateClass makes a class of the pack ("builtin", or a pack's JSON the
// caller has checked) and returns it with the teacher's token, which is
// stored only hashed: this is the one time it can be read. addr is the
// creator's address, for the rate limit.
func (s *Store) CreateClass(ctx context.Context, title, pack, addr string) (Class, string, error) {
	if err := checkText("title", title, MaxTitle); err != nil {
		return Class{}, "", err
	}
	if strings.TrimSpace(title) == "" {
		return Class{}, "", invalid("title: give the class a title (the course and term, say)")
	}
	now := s.Now()
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM classes WHERE addr = ? AND created > ?`, addrHash(addr), ms(now.Add(-time.Hour))).Scan(&n); err != nil {
		return Class{}, "", err
	}
	if n >= ClassesPerHour {
		return Class{}, "", ErrTooMany
	}
	tok, err := newToken()
	if err != nil {
		return Class{}, "", err
	}
	c := Class{Title: title, Pack: pack, Created: now}
	// A fresh code is almost never taken; a taken one is drawn again.
	for range 5 {
		if c.Code, err = newCode(); err != nil {
			return Class{}, "", err
		}
		var res sql.Result
		res, err = s.db.ExecContext(ctx, `INSERT INTO classes (code, selector, verifier, title, pack, addr, created) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (code) DO NOTHING`,
			c.Code, tok.selector, tok.verifier, title, pack, addrHash(addr), ms(now))
		if err != nil {
			return Class{}, "", err
		}
		if n, _ := res.RowsAffected(); n == 1 {
			// D1 reports no reliable last id for a conditional insert:
			// read it back by the code.
			c, err = s.classWhere(ctx, "code = ?", c.Code)
			return c, tok.String(), err
		}
	}
	return Class{}, "", fmt.Errorf("no free join code after five draws")
}

// ClassByCode is the class a join code names (any case, dashes or not).
func (s *Store) ClassByCode(ctx context.Context, code string) (Class, error) {
	return s.classWhere(ctx, "code = ?", NormalCode(code))
}

// ClassByTeacher is the class whose teacher token this is.
func (s *Store) ClassByTeacher(ctx context.Context, token string) (Class, error) {
	t, ok := parseToken(token)
	if !ok {
		return Class{}, ErrNotFound
	}
	var verifier string
	c := Class{}
	var created int64
	err := s.db.QueryRowContext(ctx, `SELECT id, code, title, pack, created, verifier FROM classes WHERE selector = ?`, t.selector).
		Scan(&c.ID, &c.Code, &c.Title, &c.Pack, &created, &verifier)
	if err != nil {
		return Class{}, notFound(err)
	}
	if !t.matches(verifier) {
		return Class{}, ErrNotFound
	}
	c.Created = time.UnixMilli(created)
	return c, nil
}

func (s *Store) classWhere(ctx context.Context, cond string, arg any) (Class, error) {
	c := Class{}
	var created int64
	err := s.db.QueryRowContext(ctx, `SELECT id, code, title, pack, created FROM classes WHERE `+cond, arg).
		Scan(&c.ID, &c.Code, &c.Title, &c.Pack, &created)
	if err != nil {
		return Class{}, notFound(err)
	}
	c.Created = time.UnixMilli(created)
	return c, nil
}

// Join adds a student named name to class c and returns their token,
// stored only hashed. A name the class has is ErrNameTaken: without
// passwords, a name is not proof of who types it.
func (s *Store) Join(ctx context.Context, c Class, name, addr string) (Student, string, error) {
	if err := exercise.CheckStudent(name); err != nil {
		return Student{}, "", InputError{err}
	}
	if strings.TrimSpace(name) != name || name == "" {
		return Student{}, "", invalid("name: give your name or student id, without spaces around it")
	}
	now := s.Now()
	var recent, size int
	if err := s.db.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM students WHERE addr = ? AND joined > ?), (SELECT COUNT(*) FROM students WHERE class = ?)`,
		addrHash(addr), ms(now.Add(-10*time.Minute)), c.ID).Scan(&recent, &size); err != nil {
		return Student{}, "", err
	}
	switch {
	case recent >= JoinsPer10Min:
		return Student{}, "", ErrTooMany
	case size >= MaxStudents:
		return Student{}, "", ErrFull
	}
	tok, err := newToken()
	if err != nil {
		return Student{}, "", err
	}
	res, err := s.db.ExecContext(ctx, `INSERT INTO students (class, name, selector, verifier, addr, joined) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (class, name) DO NOTHING`,
		c.ID, name, tok.selector, tok.verifier, addrHash(addr), ms(now))
	if err != nil {
		return Student{}, "", err
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return Student{}, "", ErrNameTaken
	}
	st, _, err := s.StudentByToken(ctx, tok.String())
	return st, tok.String(), err
}

// StudentByToken is the student whose token this is, and their class.
func (s *Store) StudentByToken(ctx context.Context, token string) (Student, Class, error) {
	t, ok := parseToken(token)
	if !ok {
		return Student{}, Class{}, ErrNotFound
	}
	var st Student
	var c Class
	var joined, created int64
	var verifier string
	err := s.db.QueryRowContext(ctx, `SELECT s.id, s.name, s.joined, s.verifier, c.id, c.code, c.title, c.pack, c.created
		FROM students s JOIN classes c ON c.id = s.class WHERE s.selector = ?`, t.selector).
		Scan(&st.ID, &st.Name, &joined, &verifier, &c.ID, &c.Code, &c.Title, &c.Pack, &created)
	if err != nil {
		return Student{}, Class{}, notFound(err)
	}
	if !t.matches(verifier) {
		return Student{}, Class{}, ErrNotFound
	}
	st.Class, st.Joined, c.Created = c.ID, time.UnixMilli(joined), time.UnixMilli(created)
	return st, c, nil
}

// Attempt is where a student stands on one exercise: how many answers
// they gave, and whether one was right.
type Attempt struct {
	Tries int
	Right bool
}

// Final reports whether no further answer is taken, of tries in all.
func (a Attempt) Final(tries int) bool { return a.Right || a.Tries >= tries }

// Attempted is where st stands on exercise id.
func (s *Store) Attempted(ctx context.Context, st Student, id string) (Attempt, error) {
	var a Attempt
	var right int
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(MAX(correct), 0) FROM submissions WHERE student = ? AND exercise = ?`, st.ID, id).Scan(&a.Tries, &right)
	a.Right = right == 1
	return a, err
}

// Resent is the submission st already made under request id, if any: a
// page that lost the answer to one asks again with the same id.
func (s *Store) Resent(ctx context.Context, st Student, request string) (Submission, bool, error) {
	subs, err := s.query(ctx, true, `WHERE student = ? AND request = ?`, st.ID, request)
	if err != nil || len(subs) == 0 {
		return Submission{}, false, err
	}
	return subs[0], true, nil
}

// Busy reports whether st submitted AnswersPerMinute answers in the last
// minute.
func (s *Store) Busy(ctx context.Context, st Student) (bool, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM submissions WHERE student = ? AND at > ?`, st.ID, ms(s.Now().Add(-time.Minute))).Scan(&n)
	return n >= AnswersPerMinute, err
}

// Submit stores sub, a graded answer of st's, unless the exercise's answer
// is final (ErrFinal: right already, or tries answers given) or sub's
// request was stored before: then that one is returned, and stored is
// false. The checks and the insert are one statement, so two answers
// racing for a last try store one.
func (s *Store) Submit(ctx context.Context, st Student, sub Submission, tries int) (Submission, bool, error) {
	if sub.Request == "" || len(sub.Request) > MaxRequest {
		return Submission{}, false, invalid("request: give the submission an id of 1 to %d characters", MaxRequest)
	}
	sub.Student, sub.At = st.ID, s.Now()
	correct := 0
	if sub.Correct {
		correct = 1
	}
	// The try's number is counted in the statement; the HAVING keeps an
	// answer to a final exercise out, and ON CONFLICT a resent request.
	// (SQLite wants the WHERE for an upsert on a SELECT.)
	res, err := s.db.ExecContext(ctx, `INSERT INTO submissions (student, exercise, try, request, answer, correct, feedback, variant, spent, at)
		SELECT ?, ?, COUNT(*) + 1, ?, ?, ?, ?, ?, ?, ? FROM submissions WHERE student = ? AND exercise = ?
		HAVING COUNT(*) < ? AND COALESCE(MAX(correct), 0) = 0
		ON CONFLICT (student, request) DO NOTHING`,
		st.ID, sub.Exercise, sub.Request, string(sub.Answer), correct, sub.Feedback, sub.Variant, sub.Spent.Milliseconds(), ms(sub.At),
		st.ID, sub.Exercise, tries)
	if err != nil {
		return Submission{}, false, err
	}
	if n, _ := res.RowsAffected(); n == 1 {
		got, ok, err := s.Resent(ctx, st, sub.Request)
		if err == nil && !ok {
			err = fmt.Errorf("the submission stored is not found")
		}
		return got, true, err
	}
	if old, ok, err := s.Resent(ctx, st, sub.Request); err != nil || ok {
		return old, false, err
	}
	return Submission{}, false, ErrFinal
}

// Submissions are st's answers, oldest first.
func (s *Store) Submissions(ctx context.Context, st Student) ([]Submission, error) {
	return s.query(ctx, true, `WHERE student = ? ORDER BY id`, st.ID)
}

// Roster is a class's students and all their answers, oldest first: what
// a teacher's dashboard and gradebook are made of. Its submissions leave
// out the feedback, variant and request: a dashboard reads the roster
// every few seconds, and D1 counts what is read.
type Roster struct {
	Students    []Student
	Submissions []Submission
}

// Roster reads class c's students and answers.
func (s *Store) Roster(ctx context.Context, c Class) (Roster, error) {
	var r Roster
	rows, err := s.db.QueryContext(ctx, `SELECT id, name, joined FROM students WHERE class = ? ORDER BY id`, c.ID)
	if err != nil {
		return r, err
	}
	defer rows.Close()
	for rows.Next() {
		st := Student{Class: c.ID}
		var joined int64
		if err := rows.Scan(&st.ID, &st.Name, &joined); err != nil {
			return r, err
		}
		st.Joined = time.UnixMilli(joined)
		r.Students = append(r.Students, st)
	}
	if err := rows.Err(); err != nil {
		return r, err
	}
	r.Submissions, err = s.query(ctx, false, `WHERE student IN (SELECT id FROM students WHERE class = ?) ORDER BY id`, c.ID)
	return r, err
}

// query reads the submissions where says; all but the grading's words,
// the variant and the request unless whole.
func (s *Store) query(ctx context.Context, whole bool, where string, args ...any) ([]Submission, error) {
	cols := `student, exercise, try, answer, correct, spent, at, '', '', ''`
	if whole {
		cols = `student, exercise, try, answer, correct, spent, at, request, feedback, variant`
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+cols+` FROM submissions `+where, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Submission
	for rows.Next() {
		var sub Submission
		var answer string
		var correct, spent, at int64
		if err := rows.Scan(&sub.Student, &sub.Exercise, &sub.Try, &answer, &correct, &spent, &at, &sub.Request, &sub.Feedback, &sub.Variant); err != nil {
			return nil, err
		}
		sub.Answer, sub.Correct = json.RawMessage(answer), correct == 1
		sub.Spent, sub.At = time.Duration(spent)*time.Millisecond, time.UnixMilli(at)
		out = append(out, sub)
	}
	return out, rows.Err()
}

func notFound(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	return err
}

func ms(t time.Time) int64 { return t.UnixMilli() }

// checkText refuses text that is too long, not UTF-8 or holds control
// characters: titles and names reach a teacher's spreadsheet.
func checkText(field, s string, limit int) error {
	switch {
	case len(s) > limit:
		return invalid("%s: %d bytes; write at most %d", field, len(s), limit)
	case !utf8.ValidString(s):
		return invalid("%s: not UTF-8 text", field)
	case strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return invalid("%s: holds a control character (a tab or a line break?)", field)
	}
	return nil
}

// addrHash keeps an address only as far as rate limits need it. An IPv6
// address counts by its /64, the block one subscriber is given: else
// each of its 2⁶⁴ addresses would have limits of its own.
func addrHash(addr string) string {
	if ip, err := netip.ParseAddr(addr); err == nil && ip.Is6() && !ip.Is4In6() {
		addr = netip.PrefixFrom(ip, 64).Masked().String()
	}
	h := sha256.Sum256([]byte("uldp-addr\x00" + addr))
	return hex.EncodeToString(h[:8])
}

// codeAlphabet spells join codes without the letters and digits read
// alike (0 O, 1 I L, 5 S, 8 B, 2 Z).
const codeAlphabet = "ACDEFGHJKMNPQRTUVWXY34679"

// newCode is a fresh join code, "XXXX-XXXX": 25⁸ ≈ 1.5·10¹¹ codes, so a
// guessed one names a class about once in ten billion tries per class.
func newCode() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	out := make([]byte, 0, 9)
	for i, x := range b {
		if i == 4 {
			out = append(out, '-')
		}
		// 256 = 10·25 + 6: the bias towards the first six letters is
		// 1 part in 25, which costs a guesser nothing worth having.
		out = append(out, codeAlphabet[int(x)%len(codeAlphabet)])
	}
	return string(out), nil
}

// NormalCode is a typed join code as stored: upper case, the dash in
// place, spaces dropped.
func NormalCode(code string) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(code) {
		if r != '-' && r != ' ' {
			b.WriteRune(r)
		}
	}
	s := b.String()
	if len(s) == 8 {
		return s[:4] + "-" + s[4:]
	}
	return s
}

// A token is a public selector, which finds its row, and a secret, whose
// SHA-256 the row keeps and compares in constant time: the store never
// holds a token a leaked copy of it could use, and lookups leak no timing
// about the secret.
type token struct {
	selector, secret, verifier string
}

const tokenPrefix = "u1."

func newToken() (token, error) {
	var b [12 + 32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return token{}, err
	}
	enc := base64.RawURLEncoding
	t := token{selector: enc.EncodeToString(b[:12]), secret: enc.EncodeToString(b[12:])}
	t.verifier = verify(t.secret)
	return t, nil
}

// String is the token as its holder keeps it.
func (t token) String() string { return tokenPrefix + t.selector + "." + t.secret }

func parseToken(s string) (token, bool) {
	rest, ok := strings.CutPrefix(s, tokenPrefix)
	if !ok || len(s) > 100 {
		return token{}, false
	}
	sel, secret, ok := strings.Cut(rest, ".")
	if !ok || len(sel) != 16 || len(secret) != 43 {
		return token{}, false
	}
	return token{selector: sel, secret: secret}, true
}

func (t token) matches(verifier string) bool {
	return subtle.ConstantTimeCompare([]byte(verify(t.secret)), []byte(verifier)) == 1
}

func verify(secret string) string {
	h := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(h[:])
}
