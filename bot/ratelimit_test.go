package bot

import "testing"

// TestRateLimitDefaults: an unset (or non-positive) rate or burst takes the default's, each on
// its own, so that a configured rate with no burst gets the default burst wherever it is used.
func TestRateLimitDefaults(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in, want RateLimit
	}{
		{RateLimit{}, DefaultRateLimit},
		{RateLimit{PerMinute: 20}, RateLimit{PerMinute: 20, Burst: DefaultRateLimit.Burst}},
		{RateLimit{Burst: 10}, RateLimit{PerMinute: DefaultRateLimit.PerMinute, Burst: 10}},
		{RateLimit{PerMinute: -1, Burst: -1}, DefaultRateLimit},
		{RateLimit{PerMinute: 1, Burst: 1}, RateLimit{PerMinute: 1, Burst: 1}},
	} {
		if got := tc.in.WithDefaults(); got != tc.want {
			t.Errorf("%+v.WithDefaults() = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}
