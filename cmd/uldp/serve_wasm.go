//go:build js && wasm

package main

// cmdServe refuses: a js/wasm program cannot listen for connections, and
// leaving the site out keeps this build small (the site holds every
// lesson's engines, over a hundred megabytes, which each run under Node
// would load).
func cmdServe(*env, []string) error {
	return usagef("this build of uldp (js/wasm) serves no site: use the native uldp, or the Worker")
}
