package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/rng"
)

type genOut struct {
	Out   string       `json:"out"`
	Spec  dataset.Spec `json:"spec"`
	Seed  uint64       `json:"seed"`
	Users int          `json:"users"`
	Items int          `json:"items_per_user"`
	Dim   int          `json:"dim"`
}

func cmdDataset(e *env, args []string) error {
	if len(args) == 0 || args[0] != "gen" {
		return usagef("usage: uldp dataset gen --kind KIND --n N --m M --d D [--seed S] --out FILE.csv|FILE.json|-")
	}
	fs := flags(e, "dataset gen", "dataset gen --kind "+strings.Join(dataset.Kinds, "|")+" --n N --m M --d D [options] [--seed S] --out FILE.csv|FILE.json|-")
	var s dataset.Spec
	fs.StringVar(&s.Kind, "kind", "", "generator: "+strings.Join(dataset.Kinds, ", "))
	fs.IntVar(&s.N, "n", 0, "number of users")
	fs.IntVar(&s.M, "m", 0, "items per user")
	fs.IntVar(&s.D, "d", 0, "dimension")
	fs.Float64Var(&s.Spread, "spread", 0, "items' standard deviation (default 1)")
	fs.Func("center", "data centre, comma-separated (default the origin)", func(v string) error {
		for _, f := range strings.Split(v, ",") {
			x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil {
				return fmt.Errorf("%q is not a number", f)
			}
			s.Center = append(s.Center, x)
		}
		return nil
	})
	fs.IntVar(&s.Clusters, "clusters", 0, "clusters: number of clusters (default 2)")
	fs.Float64Var(&s.Separation, "separation", 0, "clusters: circle radius (default 5); outliers: distance (default 10)")
	fs.Float64Var(&s.DF, "df", 0, "heavy-tail: Student-t degrees of freedom (default 2)")
	fs.IntVar(&s.Outliers, "outliers", 0, "outliers: number of far-away users (default 1)")
	seed := fs.Uint64("seed", 1, "seed of the data and perm streams")
	out := fs.String("out", "", "output file: .csv, .json, or - for CSV on standard output")
	var f format
	f.register(fs)
	if err := parse(fs, args[1:]); err != nil {
		return err
	}
	if err := required(fs, "kind", "n", "m", "d", "out"); err != nil {
		return err
	}
	ext := strings.ToLower(filepath.Ext(*out))
	if *out != "-" && ext != ".csv" && ext != ".json" {
		return usagef("--out %q: the file name must end in .csv or .json (or be - for standard output)", *out)
	}
	d, err := dataset.Generate(s, rng.New(*seed))
	if err != nil {
		return usageError{err}
	}
	if *out == "-" {
		return dataset.WriteCSV(e.stdout, d)
	}
	if err := writeDataset(*out, ext, d); err != nil {
		return err
	}
	m, _ := d.M()
	res := genOut{Out: *out, Spec: s, Seed: *seed, Users: d.N(), Items: m, Dim: d.Dim}
	return f.emit(e, res, func(w io.Writer) {
		fmt.Fprintf(w, "wrote %s: %s × %s in ℝ^%d (%s, seed %d)\n", res.Out, count(res.Users, "user"), count(res.Items, "item"), res.Dim, s.Kind, res.Seed)
	})
}

// writeDataset writes through a temporary file so a failed write never
// leaves half a dataset behind.
func writeDataset(path, ext string, d *dataset.Dataset) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".uldp-*"+ext)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return usagef("--out %q: the directory %s does not exist: create it or write elsewhere", path, filepath.Dir(path))
		}
		return err
	}
	defer os.Remove(tmp.Name())
	if ext == ".csv" {
		err = dataset.WriteCSV(tmp, d)
	} else {
		enc := json.NewEncoder(tmp)
		enc.SetIndent("", " ")
		err = enc.Encode(d)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
