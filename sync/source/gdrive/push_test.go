package gdrive_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/api/option"

	"github.com/citahq/cita/config"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/sync/push"
	"github.com/citahq/cita/sync/scheduler"
	"github.com/citahq/cita/sync/syncrun"
	"github.com/citahq/cita/sync/syncrun/synctest"
)

// TestDrivePushReachesAnswersInSeconds registers a push channel with the fake Drive through the
// real Drive client, serves POST /hooks/gdrive on a loopback server, and edits, adds and removes
// Drive files 20 times with no schedule: each change must reach search through the notification
// and an incremental pass. It logs the median and worst lag (target 5 s). A notification with a
// wrong token is refused and triggers nothing; a channel near its expiry is replaced and the old
// one stopped.
func TestDrivePushReachesAnswersInSeconds(t *testing.T) {
	t.Parallel()
	fake, srv := newFakeDrive(t)
	seedDrive(fake)
	ix := synctest.New(t)
	logger := slog.New(slog.DiscardHandler)
	d := newDrive(t, srv.URL, option.WithHTTPClient(srv.Client()), "everyone")
	src := syncrun.Source{Name: "drive", Connector: d}
	ix.MustRun(t, src, syncrun.RunOptions{})

	sched := scheduler.New(ix.Runner, logger)
	if err := sched.Add(config.SourceConfig{Name: "drive", Type: "gdrive"}, src); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sched.Start(ctx)
	defer sched.Stop()
	channels := push.NewChannels(ix.Store.Pool())
	var triggers atomic.Int32
	hook := httptest.NewServer(push.Handler(channels, func(ctx context.Context, source string, at time.Time) {
		triggers.Add(1)
		if err := ix.Runner.History().NotePending(ctx, source, 1, at); err != nil {
			t.Error(err)
		}
		if err := sched.Trigger(source, at); err != nil {
			t.Error(err)
		}
	}, logger))
	defer hook.Close()
	renewer := &push.Renewer{Source: "drive", Address: hook.URL + push.Path, Drive: d, Channels: channels, Logger: logger}
	first, err := renewer.Renew(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if live := fake.liveChannels(); len(live) != 1 || live[0].ID != first.ID || live[0].Token == "" {
		t.Fatalf("channels at Drive: %+v", live)
	}

	// A forged notification: right channel id, wrong token.
	req, _ := http.NewRequest(http.MethodPost, hook.URL+push.Path, nil)
	req.Header.Set("X-Goog-Channel-ID", first.ID)
	req.Header.Set("X-Goog-Channel-Token", "guessed")
	req.Header.Set("X-Goog-Resource-State", "change")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || triggers.Load() != 0 {
		t.Fatalf("forged notification: status %d, %d triggers; want 403 and none", resp.StatusCode, triggers.Load())
	}

	scope := rag.MustScope("everyone", "bob@example.com") // md1 is bob's
	found := func(word string) bool {
		res, err := ix.Search.Search(context.Background(), rag.SearchRequest{Query: word, Scope: scope, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		return slices.ContainsFunc(res.Hits, func(h rag.Hit) bool { return strings.Contains(h.Content, word) })
	}
	waitFor := func(what string, cond func() bool) time.Duration {
		start := time.Now()
		for !cond() {
			if time.Since(start) > 15*time.Second {
				t.Fatalf("%s: not reflected after %s", what, time.Since(start))
			}
			time.Sleep(10 * time.Millisecond)
		}
		return time.Since(start)
	}
	const runs = 20
	var lags []time.Duration
	for i := range runs {
		word := fmt.Sprintf("quokkaz%d", i)
		var lag time.Duration
		if i%2 == 0 {
			start := time.Now()
			fake.update("md1", func(f *fakeFile) { f.Content = "# Notas\n\nEl código es " + word + ".\n" })
			waitFor("edit "+word, func() bool { return found(word) })
			lag = time.Since(start)
		} else {
			id := "new" + word
			fake.put(fakeFile{ID: id, Name: id + ".md", MimeType: "text/markdown", Content: "# Nota\n\n" + word + " aquí.\n",
				Perms: []map[string]string{{"type": "anyone", "role": "reader"}}})
			waitFor("create "+word, func() bool { return found(word) })
			start := time.Now()
			fake.remove(id)
			waitFor("remove "+word, func() bool { return !found(word) })
			lag = time.Since(start)
		}
		lags = append(lags, lag)
	}
	slices.Sort(lags)
	median, worst := lags[len(lags)/2], lags[len(lags)-1]
	t.Logf("drive push: change reflected in answers, %d runs (edits and removals): median %s, worst %s (target 5s)",
		runs, median.Round(time.Millisecond), worst.Round(time.Millisecond))
	if worst > 5*time.Second {
		t.Errorf("worst lag %s exceeds 5s", worst)
	}

	// Renewal: a channel that expires within RenewBefore is replaced, and the old one stopped.
	renewer.RenewBefore = 48 * time.Hour
	second, err := renewer.Renew(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if second.ID == first.ID {
		t.Fatal("the channel was not renewed")
	}
	if live := fake.liveChannels(); len(live) != 1 || live[0].ID != second.ID {
		t.Fatalf("after renewal, channels at Drive: %+v; want only the new one", live)
	}
	if _, err := channels.Verify(ctx, first.ID, "any"); err == nil {
		t.Fatal("the old channel still verifies")
	}
	renewer.RenewBefore = time.Hour
	if third, err := renewer.Renew(ctx); err != nil || third.ID != second.ID {
		t.Fatalf("a live channel was replaced: %v, %+v", err, third)
	}
}
