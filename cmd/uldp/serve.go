//go:build !(js && wasm)

package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/uldplab/uldp/site"
	"github.com/uldplab/uldp/site/api"
	"github.com/uldplab/uldp/site/class"
)

func cmdServe(e *env, args []string) error {
	fs := flags(e, "serve", "serve [--addr 127.0.0.1:8080] [--class-db FILE]")
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on (port 0 picks a free port)")
	classDB := fs.String("class-db", "", "keep classes and every submission in this SQLite file (made if missing; see uldp class create)")
	if err := parse(fs, args); err != nil {
		return err
	}
	var opts []api.Option
	if *classDB != "" {
		db, err := openClassDB(context.Background(), *classDB)
		if err != nil {
			return usagef("--class-db %v", err)
		}
		defer db.Close()
		opts = append(opts, api.WithClasses(api.Classes{Store: class.New(db)}))
	}
	if _, _, err := net.SplitHostPort(*addr); err != nil {
		return usagef("--addr %q: write host:port, e.g. 127.0.0.1:8080", *addr)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return usagef("cannot listen on %s: %v (is another server using the port? try --addr 127.0.0.1:0)", *addr, err)
	}
	// The address bound, not the one written: "localhost" is loopback,
	// ":8080" is every interface.
	if ip := ln.Addr().(*net.TCPAddr).IP; !ip.IsLoopback() {
		where := ip.String()
		if ip.IsUnspecified() {
			where = "every network interface"
		}
		fmt.Fprintf(e.stderr, "warning: listening on %s, reachable from other machines; use 127.0.0.1 to keep the site local\n", where)
	}
	srv := site.Server(api.WithSite(site.Handler(), opts...))
	fmt.Fprintf(e.stdout, "ULDP Lab is being served at http://%s/ (Ctrl+C to stop)\n", ln.Addr())
	if *classDB != "" {
		fmt.Fprintf(e.stdout, "Classes are kept in %s; a teacher's dashboard is at http://%s/class.html\n", *classDB, ln.Addr())
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		fmt.Fprintln(e.stdout, "stopped")
		return nil
	}
}
