package config

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"
)

// ServerConfig tunes `cita serve`: the answer worker pool, the question limits and logging. The
// zero value means the defaults (see WithDefaults).
type ServerConfig struct {
	// Workers is how many answers run at once; default 8. Each uses up to two database
	// connections while it searches (the two arms run in parallel).
	Workers int `yaml:"workers"`
	// QueueSize is how many questions may wait for a worker; beyond it askers get a "busy"
	// reply at once. Default 64; -1 means no line.
	QueueSize int `yaml:"queue_size"`
	// UserRateLimit is each user's question rate on every platform; it overrides
	// slack.rate_limit when set. Zeros: slack.rate_limit, else 6 a minute, bursts of 3.
	UserRateLimit RateLimitConfig `yaml:"user_rate_limit"`
	// WorkspaceRateLimit is the question rate of one Slack workspace or Discord guild; zeros mean
	// no workspace limit.
	WorkspaceRateLimit RateLimitConfig `yaml:"workspace_rate_limit"`
	// ShutdownGrace is how long in-flight answers may finish after SIGTERM; default 30s.
	ShutdownGrace time.Duration `yaml:"shutdown_grace"`
	// Log configures the structured logs.
	Log LogConfig `yaml:"log"`
}

// RateLimitConfig is a token bucket: PerMinute questions on average, Burst at once.
type RateLimitConfig struct {
	PerMinute float64 `yaml:"per_minute"`
	Burst     int     `yaml:"burst"`
}

// LogConfig picks the log format and level (env CITA_LOG_FORMAT, CITA_LOG_LEVEL).
type LogConfig struct {
	// Format is "json" or "text"; empty means JSON when stderr is not a terminal.
	Format string `yaml:"format"`
	// Level is "debug", "info" (default), "warn" or "error".
	Level string `yaml:"level"`
}

// ApplyEnv overrides the fields set by CITA_WORKERS, CITA_QUEUE_SIZE, CITA_LOG_FORMAT and
// CITA_LOG_LEVEL. It returns an error naming a variable that is not a number.
func (s *ServerConfig) ApplyEnv() error {
	var errs []error
	for name, dst := range map[string]*int{"CITA_WORKERS": &s.Workers, "CITA_QUEUE_SIZE": &s.QueueSize} {
		if v := os.Getenv(name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %q is not a whole number", name, v))
				continue
			}
			*dst = n
		}
	}
	if v := os.Getenv("CITA_LOG_FORMAT"); v != "" {
		s.Log.Format = v
	}
	if v := os.Getenv("CITA_LOG_LEVEL"); v != "" {
		s.Log.Level = v
	}
	return errors.Join(errs...)
}

// WithDefaults returns s with the default of every unset field (the log format stays empty:
// the caller decides by the terminal).
func (s ServerConfig) WithDefaults() ServerConfig {
	if s.Workers == 0 {
		s.Workers = 8
	}
	if s.QueueSize == 0 {
		s.QueueSize = 64
	}
	if s.ShutdownGrace == 0 {
		s.ShutdownGrace = 30 * time.Second
	}
	if s.Log.Level == "" {
		s.Log.Level = "info"
	}
	return s
}

// Validate checks the server settings; its error names each wrong field and the fix.
func (s ServerConfig) Validate() error {
	var errs []error
	if s.Workers < 0 || s.Workers > 1024 {
		errs = append(errs, fmt.Errorf("server.workers: %d is out of range; use 1-1024 (0 means 8)", s.Workers))
	}
	if s.QueueSize < -1 {
		errs = append(errs, fmt.Errorf("server.queue_size: %d is out of range; use -1 (no line), 0 (default 64) or more", s.QueueSize))
	}
	for name, rl := range map[string]RateLimitConfig{"user_rate_limit": s.UserRateLimit, "workspace_rate_limit": s.WorkspaceRateLimit} {
		if rl.PerMinute < 0 || rl.Burst < 0 {
			errs = append(errs, fmt.Errorf("server.%s: per_minute and burst must not be negative", name))
		}
		if rl.PerMinute > 0 && rl.Burst == 0 {
			errs = append(errs, fmt.Errorf("server.%s: set burst (questions at once, e.g. 3) with per_minute", name))
		}
	}
	if s.ShutdownGrace < 0 {
		errs = append(errs, errors.New("server.shutdown_grace: must not be negative (e.g. 30s)"))
	}
	switch s.Log.Format {
	case "", "json", "text":
	default:
		errs = append(errs, fmt.Errorf("server.log.format: %q is not known; use json or text", s.Log.Format))
	}
	switch s.Log.Level {
	case "", "debug", "info", "warn", "error":
	default:
		errs = append(errs, fmt.Errorf("server.log.level: %q is not known; use debug, info, warn or error", s.Log.Level))
	}
	return errors.Join(errs...)
}
