package bot_test

import (
	"fmt"
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

func TestBoundedVersionedCacheStaysWithinItsBound(t *testing.T) {
	t.Parallel()
	now := time.Unix(1000, 0)
	c := bot.NewBoundedVersionedCache[int](100, time.Minute, func() time.Time { return now })
	for n := range 1000 {
		now = now.Add(time.Millisecond)
		c.Set(fmt.Sprint("member:", n), n, 1)
		if c.Len() > 100 {
			t.Fatalf("%d entries after %d sets, want at most 100", c.Len(), n+1)
		}
	}
	if v, ok := c.Get("member:999", 1); !ok || v != 999 {
		t.Fatalf("the latest entry is gone: %v %v", v, ok)
	}
	if _, ok := c.Get("member:0", 1); ok {
		t.Fatal("the oldest entry survived 900 newer ones")
	}
	c.Set("member:999", -1, 2) // replacing an entry in a full cache evicts nothing
	if v, ok := c.Get("member:998", 1); !ok || v != 998 {
		t.Fatalf("replacing an entry evicted another: %v %v", v, ok)
	}
}
