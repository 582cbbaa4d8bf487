package runner

import (
	"math"

	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/optim"
	"github.com/uldplab/uldp/core/scenario"
)

// The audits build a mechanism's parameters as a run does, then change
// what they test: these give them the run's, with errors named as Job's.

// DPSGDParams checks DP-SGD's parameters; DPSGDFor completes them for a
// dataset.
func (c *Config) DPSGDParams() (optim.DPSGDParams, error) {
	if err := c.checkParams(); err != nil {
		return optim.DPSGDParams{}, c.named(err)
	}
	p, err := c.dpsgdParams()
	return p, c.named(err)
}

// DPSGDFor fills in Theorem 4.1's settings for ds where no parameter gave
// them; the error says which setting the theorem cannot give for these
// inputs.
func (c *Config) DPSGDFor(p optim.DPSGDParams, ds *dataset.Dataset) (optim.DPSGDParams, optim.DPSGDSettings, error) {
	p, set, err := c.dpsgdFor(p, ds)
	return p, set, c.named(err)
}

// RobustParams checks robust SGD's parameters; the data's dimension and
// size are checked when the run starts.
func (c *Config) RobustParams() (optim.RobustSGDParams, error) {
	if err := c.checkParams(); err != nil {
		return optim.RobustSGDParams{}, c.named(err)
	}
	p, err := c.robustParams()
	return p, c.named(err)
}

// OIRParams checks outlier-iterate removal's parameters; the data's size
// is checked when the run starts.
func (c *Config) OIRParams() (optim.OIRParams, error) {
	if err := c.checkParams(); err != nil {
		return optim.OIRParams{}, c.named(err)
	}
	p, err := c.oirParams()
	return p, c.named(err)
}

// Steps is how many steps a run on ds takes where a parameter or a
// theorem chooses that number: DP-SGD's T (the largest phase's for the
// strongly convex localisation, whose later phases are smaller) and ORME's
// queries. It is 0 for the mechanisms whose steps the data bounds.
func (c *Config) Steps(ds *dataset.Dataset) (int, error) {
	switch c.Mech {
	case scenario.MechORME:
		return c.Queries, nil
	case scenario.MechDPSGD:
		p, err := c.DPSGDParams()
		if err != nil {
			return 0, err
		}
		_, set, err := c.DPSGDFor(p, ds)
		return set.Steps, err
	case scenario.MechDPSGDSC:
		m, _ := ds.M()
		n := float64(ds.N())
		full := float64(m*m)*n*n + float64(m)*n*math.Sqrt(float64(ds.Dim))
		if c.steps > 0 {
			full = math.Min(full, float64(c.steps))
		}
		return int(math.Min(full, math.MaxInt32)), nil
	}
	return 0, nil
}
