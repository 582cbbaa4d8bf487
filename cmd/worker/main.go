// Command worker is ULDP Lab on Cloudflare Workers: the site's files are
// the Worker's static assets (wrangler.jsonc), and this program answers
// /api/* with the same handlers `uldp serve` mounts (package site/api),
// through github.com/syumai/workers. It is built for GOOS=js GOARCH=wasm:
//
//	make worker-build   # the site's files in public/, the Worker in build/
//	make worker-dev     # served under workerd on http://127.0.0.1:8787/
//
// Workers start a fresh instance of the program for every request, so it
// keeps nothing between requests; nothing in the API needs to. A path the
// static assets do not hold reaches the program too, which answers it with
// the API's JSON 404.
//
// Classes are kept in the D1 database bound as CLASSES, whose schema
// wrangler applies from the class store's migrations (wrangler.jsonc):
//
//	npx wrangler d1 migrations apply CLASSES --local   # or --remote
package main

import (
	"time"

	"github.com/uldplab/uldp/site/api"
	"github.com/uldplab/uldp/site/class"
)

func main() {
	var opts []api.Option
	if db, ok := classDB(); ok {
		// A dashboard read is every student and answer, and D1's free
		// plan reads 5 million rows a day: a class of 500 × 20 answers
		// read every 10 s would use it up in under 2 hours.
		opts = append(opts, api.WithClasses(api.Classes{Store: class.New(db), Addr: clientAddr, Refresh: time.Minute}))
	}
	serve(api.WithSite(api.Missing(), opts...))
}
