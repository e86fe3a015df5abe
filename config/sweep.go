package config

import (
	"fmt"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// DefaultSweepInterval is sweep.interval when unset.
const DefaultSweepInterval = 10 * time.Minute

// SweepConfig tunes the reconciliation sweep of `cita serve`: every interval one replica (the
// first to claim it in the database) asks Slack and Discord who reads each channel that shows
// answers from the retention window, and withdraws what those readers may not read. It catches
// membership and permission changes whose event was lost, or never sent (Discord http mode).
// See docs/security.md, "Reconciliation sweep".
//
//	sweep:
//	  interval: 10m   # default; from 10s to 24h; "off" (or 0) turns it off
type SweepConfig struct {
	Interval SweepInterval `yaml:"interval"`
}

// SweepInterval is a duration that also accepts "off"; unset means DefaultSweepInterval.
type SweepInterval struct {
	d   time.Duration
	set bool
}

// UnmarshalYAML reads "off", "0" or a Go duration such as "10m".
func (s *SweepInterval) UnmarshalYAML(n *yaml.Node) error {
	v := strings.TrimSpace(n.Value)
	s.set = true
	if strings.EqualFold(v, "off") || v == "0" {
		s.d = 0
		return nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return fmt.Errorf("sweep.interval: %q is not a duration; use e.g. 10m, or off", v)
	}
	s.d = d
	return nil
}

// Every returns how often the sweep runs: DefaultSweepInterval when unset, 0 when off.
func (c SweepConfig) Every() time.Duration {
	if !c.Interval.set {
		return DefaultSweepInterval
	}
	return c.Interval.d
}

func (c SweepConfig) validate() []error {
	if d := c.Every(); d != 0 && (d < 10*time.Second || d > 24*time.Hour) {
		return []error{fmt.Errorf("sweep.interval: %s is out of range; use 10s to 24h (default 10m), or off", d)}
	}
	return nil
}

// MarshalYAML writes the interval back as Unmarshal reads it.
func (s SweepInterval) MarshalYAML() (any, error) {
	switch {
	case !s.set:
		return nil, nil
	case s.d == 0:
		return "off", nil
	}
	return s.d.String(), nil
}
