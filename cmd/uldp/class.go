package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/uldplab/uldp/site/class"
	"github.com/uldplab/uldp/viz/classroom"
)

// cmdClass runs a class's store from the command line: create a class,
// export its gradebook.
func cmdClass(e *env, args []string) error {
	const synopsis = "class create --db FILE --title TITLE [--pack builtin|FILE] | class export --db FILE --code CODE [--format csv|json]"
	if len(args) == 0 || !slices.Contains([]string{"create", "export"}, args[0]) {
		return usagef("give what to do: uldp %s", synopsis)
	}
	switch args[0] {
	case "create":
		return classCreate(e, args[1:])
	default:
		return classExport(e, args[1:])
	}
}

// openStore opens the class database named by --db, which must exist
// unless create says it may be made.
func openStore(path string, create bool) (*sql.DB, *class.Store, error) {
	if !create {
		if _, err := os.Stat(path); err != nil {
			return nil, nil, usagef("--db %s: no such database (uldp class create --db %s … makes one)", path, path)
		}
	}
	db, err := openClassDB(context.Background(), path)
	if err != nil {
		return nil, nil, usagef("--db %v", err)
	}
	return db, class.New(db), nil
}

func classCreate(e *env, args []string) error {
	fs := flags(e, "class create", "class create --db FILE --title TITLE [--pack builtin|FILE] [--format json|text]")
	dbPath := fs.String("db", "", "the class database (a SQLite file, made if missing): give the same to uldp serve --class-db")
	title := fs.String("title", "", "the class's title, as students see it (the course and term, say)")
	pack := fs.String("pack", "builtin", "the exercise pack: builtin, or a pack's JSON file")
	var f format
	f.register(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "db", "title"); err != nil {
		return err
	}
	p, err := readPack(*pack)
	if err != nil {
		return err
	}
	stored := "builtin"
	if *pack != "builtin" {
		b, err := os.ReadFile(*pack) // read and checked whole by readPack just now
		if err != nil {
			return usagef("--pack %s: %v", *pack, err)
		}
		stored = string(b)
	}
	db, store, err := openStore(*dbPath, true)
	if err != nil {
		return err
	}
	defer db.Close()
	c, teacher, err := store.CreateClass(context.Background(), *title, stored, "command line")
	switch {
	case errors.Is(err, class.ErrTooMany):
		return usagef("%d classes were created in %s this hour, the most an hour takes: wait, or use another --db", class.ClassesPerHour, *dbPath)
	case err != nil:
		return usagef("%v", err)
	}
	out := struct {
		Code    string `json:"code"`
		Title   string `json:"title"`
		Pack    string `json:"pack"`
		Teacher string `json:"teacher"`
	}{c.Code, c.Title, p.Title, teacher}
	return f.emit(e, out, func(w io.Writer) {
		fmt.Fprintf(w, "Class “%s” (pack “%s”) created.\n\n", c.Title, p.Title)
		fmt.Fprintf(w, "  Join code for students:  %s\n", c.Code)
		fmt.Fprintf(w, "  Teacher token (secret):  %s\n\n", teacher)
		fmt.Fprintf(w, "Serve it with: uldp serve --class-db %s\n", *dbPath)
		fmt.Fprintln(w, "Students open the site, choose Exercises, and join with the code and their name.")
		fmt.Fprintln(w, "Open /class.html and paste the teacher token to watch the class work.")
		fmt.Fprintln(w, "The token is not stored anywhere readable: keep it; it is shown only now.")
	})
}

func classExport(e *env, args []string) error {
	fs := flags(e, "class export", "class export --db FILE --code CODE [--format csv|json|text]")
	dbPath := fs.String("db", "", "the class database (a SQLite file)")
	code := fs.String("code", "", "the class's join code (as printed by uldp class create)")
	out := fs.String("format", "csv", "csv (the columns of uldp grade --format csv), json or text")
	if err := parse(fs, args); err != nil {
		return err
	}
	if !slices.Contains([]string{"csv", "json", "text"}, *out) {
		return usagef("--format %q: use csv, json or text", *out)
	}
	if err := required(fs, "db", "code"); err != nil {
		return err
	}
	db, store, err := openStore(*dbPath, false)
	if err != nil {
		return err
	}
	defer db.Close()
	ctx := context.Background()
	c, err := store.ClassByCode(ctx, *code)
	if err != nil {
		return usagef("--code %s: no class in %s has this code", *code, *dbPath)
	}
	raw := []byte(`"builtin"`)
	if c.Pack != "builtin" {
		raw = []byte(c.Pack)
	}
	p, err := classroom.PackOf(raw)
	if err != nil {
		return fmt.Errorf("the class's pack no longer reads: %v", err)
	}
	r, err := store.Roster(ctx, c)
	if err != nil {
		return err
	}
	book := class.Gradebook(p, r)
	switch *out {
	case "csv":
		return book.WriteCSV(e.stdout)
	case "text":
		return format{text: true}.emit(e, book, book.WriteText)
	}
	return format{}.emit(e, book, nil)
}
