package config

import (
	"testing"
	"time"
)

func TestSweepInterval(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, yaml string
		every      time.Duration
		err        string
	}{
		{"unset", "", DefaultSweepInterval, ""},
		{"set", "sweep:\n  interval: 3m\n", 3 * time.Minute, ""},
		{"off", "sweep:\n  interval: off\n", 0, ""},
		{"zero", "sweep:\n  interval: 0\n", 0, ""},
		{"too often", "sweep:\n  interval: 1s\n", 0, "sweep.interval"},
		{"not a duration", "sweep:\n  interval: sometimes\n", 0, "sweep.interval"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := Load(writeTemp(t, c.yaml))
			checkErr(t, err, nonEmpty(c.err)...)
			if err == nil && cfg.Sweep.Every() != c.every {
				t.Errorf("every = %s, want %s", cfg.Sweep.Every(), c.every)
			}
		})
	}
}
