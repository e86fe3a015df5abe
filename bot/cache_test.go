package bot_test

import (
	"testing"
	"time"

	"github.com/citahq/cita/bot"
)

func TestVersionedCacheServesOnlyTheCurrentVersions(t *testing.T) {
	t.Parallel()
	now := time.Unix(1000, 0)
	c := bot.NewVersionedCache[string](time.Minute, func() time.Time { return now })
	c.Set("users", "list at 3/1", 3, 1)
	if v, ok := c.Get("users", 3, 1); !ok || v != "list at 3/1" {
		t.Fatalf("Get = %q, %v", v, ok)
	}
	for _, versions := range [][]int64{{4, 1}, {3, 2}, {3}, {3, 1, 0}, nil} {
		if _, ok := c.Get("users", versions...); ok {
			t.Fatalf("served under versions %v an entry built under [3 1]", versions)
		}
	}
	c.Set("users", "list at 4/1", 4, 1)
	if _, ok := c.Get("users", 3, 1); ok {
		t.Fatal("the older version's entry survived a newer Set")
	}
	now = now.Add(time.Minute)
	if _, ok := c.Get("users", 4, 1); ok {
		t.Fatal("served after the ttl (a lost change event must not last longer)")
	}
	c.Set("roles", "x", 1)
	c.Clear()
	if _, ok := c.Get("roles", 1); ok {
		t.Fatal("served after Clear")
	}
}
