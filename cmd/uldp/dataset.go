package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/semisens"
	"github.com/uldplab/uldp/core/trace"
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
	fs := flags(e, "dataset gen", "dataset gen --kind "+strings.Join(dataset.Kinds, "|")+" --n N --m M --d D [options] [--seed S] --out FILE.csv|FILE.json|-\n       uldp dataset gen --kind semi-sensitive --n N --k K --d D_PUB [--effect E] [--seed S] --out FILE.csv|-")
	var s dataset.Spec
	fs.StringVar(&s.Kind, "kind", "", "generator: "+strings.Join(dataset.Kinds, ", ")+", or semi-sensitive (examples with public features, a label and a sensitive value)")
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
	k := fs.Int("k", 0, "semi-sensitive: the number of values of the sensitive feature")
	effect := fs.Float64("effect", 4, "semi-sensitive: how strongly the sensitive value sets the label (0: not at all)")
	if err := parse(fs, args[1:]); err != nil {
		return err
	}
	if s.Kind == kindSemi {
		return genSemi(e, fs, semisens.Spec{N: s.N, K: *k, DimPub: s.D, Effect: *effect}, *seed, *out, f)
	}
	if err := required(fs, "kind", "n", "m", "d", "out"); err != nil {
		return err
	}
	for _, name := range []string{"k", "effect"} {
		if given(fs)[name] {
			return usagef("--%s is for --kind semi-sensitive, not %s", name, s.Kind)
		}
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
		fmt.Fprintf(w, "wrote %s: %s × %s in ℝ^%d (%s, seed %d)\n", res.Out, trace.Count(res.Users, "user"), trace.Count(res.Items, "item"), res.Dim, s.Kind, res.Seed)
	})
}

// writeDataset writes d as CSV or JSON.
func writeDataset(path, ext string, d *dataset.Dataset) error {
	return writeAtomic(path, func(w io.Writer) error {
		if ext == ".csv" {
			return dataset.WriteCSV(w, d)
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", " ")
		return enc.Encode(d)
	})
}

// writeAtomic writes through a temporary file so a failed write never
// leaves half a file behind.
func writeAtomic(path string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".uldp-*"+filepath.Ext(path))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return usagef("--out %q: the directory %s does not exist: create it or write elsewhere", path, filepath.Dir(path))
		}
		return err
	}
	defer os.Remove(tmp.Name())
	err = write(tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// kindSemi is the generator of examples with a sensitive feature.
const kindSemi = "semi-sensitive"

// genSemi writes a semi-sensitive dataset as CSV.
func genSemi(e *env, fs *flag.FlagSet, s semisens.Spec, seed uint64, out string, f format) error {
	if err := required(fs, "n", "k", "d", "out"); err != nil {
		return err
	}
	for _, name := range []string{"m", "spread", "center", "clusters", "separation", "df", "outliers"} {
		if given(fs)[name] {
			return usagef("--%s is for the users' generators: a semi-sensitive dataset has one example per row (it takes --n, --k, --d, --effect, --seed, --out)", name)
		}
	}
	if out != "-" && strings.ToLower(filepath.Ext(out)) != ".csv" {
		return usagef("--out %q: a semi-sensitive dataset is written as .csv (or - for standard output)", out)
	}
	d, err := semisens.Generate(s, rng.New(seed).Get(rng.Data))
	if err != nil {
		return usageError{err}
	}
	if out == "-" {
		return semisens.WriteCSV(e.stdout, d)
	}
	if err := writeAtomic(out, func(w io.Writer) error { return semisens.WriteCSV(w, d) }); err != nil {
		return err
	}
	return f.emit(e, map[string]any{"out": out, "spec": s, "seed": seed}, func(w io.Writer) {
		fmt.Fprintf(w, "wrote %s: %d examples, public features in ℝ^%d, a label, a sensitive value of %d (effect %g, seed %d)\n", out, s.N, s.DimPub, s.K, s.Effect, seed)
	})
}
