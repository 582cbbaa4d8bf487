# Pairs "BenchmarkX/uldp" with "BenchmarkX/google" in `go test -bench` output
# and prints their throughput ratio as a Markdown table.
/^Benchmark/ {
	name = $1
	sub(/-[0-9]+$/, "", name)           # drop the GOMAXPROCS suffix
	for (i = 3; i < NF; i++) if ($(i+1) == "ns/op") ns = $i
	n = split(name, part, "/")
	if (n == 2 && (part[2] == "uldp" || part[2] == "google")) {
		t[part[1], part[2]] = ns
		if (!(part[1] in seen)) { seen[part[1]] = 1; order[++count] = part[1] }
	}
}
END {
	if (count == 0) exit
	print ""
	print "| benchmark | uldp ns/op | google ns/op | uldp throughput ÷ google |"
	print "|---|---:|---:|---:|"
	for (k = 1; k <= count; k++) {
		b = order[k]; u = t[b, "uldp"]; g = t[b, "google"]
		if (u == "" || g == "") continue
		printf "| %s | %.1f | %.1f | %.1f× |\n", substr(b, 10), u, g, g / u
	}
}
