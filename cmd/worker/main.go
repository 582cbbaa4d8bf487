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
package main

import "github.com/uldplab/uldp/site/api"

func main() { serve(api.WithSite(api.Missing())) }
