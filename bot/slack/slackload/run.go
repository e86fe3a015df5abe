package slackload

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/citahq/cita/bot"
	slackbot "github.com/citahq/cita/bot/slack"
)

// Config is one load run.
type Config struct {
	// Handler answers the questions (its Queue and limits are what the run exercises).
	Handler *bot.Handler
	// Store dedupes events and records answers (the handler's store).
	Store bot.Store
	// Concurrency is how many askers ask at once; each waits for its answer before asking again.
	Concurrency int
	// PerAsker is how many questions each asker asks; default 1.
	PerAsker int
	// Questions are asked round-robin.
	Questions []string
	// Timeout bounds the wait for one reply; default 2 minutes.
	Timeout time.Duration
	// Assistant asks in assistant threads (a DM thread per question, Slack's AI app view)
	// instead of mentioning the bot in a channel: the status, native streaming and the
	// first words are measured too.
	Assistant bool
	// Model, when set, is the fake chat model the pipeline answers with: the first words are
	// then also measured from the moment each request reached it (retrieval had ended).
	Model  *FakeModel
	Logger *slog.Logger
}

// Report is what the askers saw.
type Report struct {
	Asked, Replied, TimedOut int
	Wall                     time.Duration
	// Placeholder and Final are, per replied question, the time from posting the event to the
	// placeholder (the first visible response) and to the final reply, sorted.
	Placeholder, Final []time.Duration
	// Status and FirstWords are, in assistant threads, the time from posting the event to the
	// "Searching…" status and to the answer's first words on Slack, sorted.
	Status, FirstWords []time.Duration
	// FirstWordsAfterModel is, with a Model, the time from the model receiving the request
	// (retrieval over) to those first words on Slack, sorted.
	FirstWordsAfterModel []time.Duration
	// Replies are the final replies' texts, in arrival order.
	Replies []string
	// Calls counts the Slack Web API calls the adapter made.
	Calls map[string]int
}

// Throughput is replies per second of wall time.
func (r *Report) Throughput() float64 {
	if r.Wall <= 0 {
		return 0
	}
	return float64(r.Replied) / r.Wall.Seconds()
}

// Percentile returns the p-th percentile (0-100, nearest rank) of sorted durations; 0 for none.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted))*p/100+0.999999) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// Run wires the real Slack adapter (HTTP mode) to a fresh FakeSlack, lets cfg.Concurrency askers
// post signed app_mention events to its endpoint, waits for every reply (or its timeout), shuts
// the adapter down (answers in flight finish) and closes every server and connection it opened.
// It returns an error when the adapter cannot start or a request cannot be sent.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if cfg.Handler == nil || cfg.Store == nil || cfg.Concurrency <= 0 || len(cfg.Questions) == 0 {
		return nil, errors.New("slackload: Handler, Store, a positive Concurrency and Questions are required")
	}
	if cfg.PerAsker <= 0 {
		cfg.PerAsker = 1
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 2 * time.Minute
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	fake := NewFakeSlack()
	defer fake.Close()
	secret := randomHex(16)
	apiTransport := &http.Transport{MaxIdleConnsPerHost: cfg.Concurrency * 2}
	defer apiTransport.CloseIdleConnections()
	adapter, err := slackbot.New(ctx, slackbot.Options{
		BotToken: "xoxb-load", SigningSecret: secret, APIURL: fake.APIURL(),
		HTTPClient: &http.Client{Transport: apiTransport, Timeout: 30 * time.Second},
		Handler:    cfg.Handler, Store: cfg.Store,
		Access: bot.NewAccessMap(nil, nil, nil, nil, []string{"everyone"}),
		Logger: cfg.Logger,
	})
	if err != nil {
		return nil, err
	}
	events := httptest.NewServer(adapter.HTTPHandler("/slack"))
	defer events.Close()
	eventTransport := &http.Transport{MaxIdleConnsPerHost: cfg.Concurrency}
	defer eventTransport.CloseIdleConnections()
	client := &http.Client{Transport: eventTransport, Timeout: 10 * time.Second}

	rep := &Report{}
	var mu sync.Mutex
	var seq atomic.Int64
	var firstErr error
	run := randomHex(4)
	start := time.Now()
	var wg sync.WaitGroup
	for asker := range cfg.Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			channel := fmt.Sprintf("CL%05d", asker)
			if cfg.Assistant {
				channel = fmt.Sprintf("DL%05d", asker)
			}
			for range cfg.PerAsker {
				n := seq.Add(1)
				q := cfg.Questions[int(n-1)%len(cfg.Questions)]
				r := fake.expect(channel)
				posted := time.Now()
				ts := fmt.Sprintf("%d.%06d", posted.Unix(), n)
				body := mention(run, n, channel, "U"+channel[1:], q, ts)
				if cfg.Assistant {
					body = threadMessage(run, n, channel, "U"+channel[1:], q, ts)
				}
				if err := post(ctx, client, events.URL+"/slack/events", body, secret); err != nil {
					mu.Lock()
					firstErr = cmpErr(firstErr, err)
					mu.Unlock()
					return
				}
				var placeholder, status time.Time
				var first words
				timeout := time.NewTimer(cfg.Timeout)
				if cfg.Assistant { // the status is the first visible response; a placeholder only without streaming
					select {
					case status = <-r.status:
					case <-timeout.C:
						timeout.Reset(0)
					}
				} else {
					select {
					case placeholder = <-r.placeholder:
					case <-timeout.C:
						timeout.Reset(0)
					}
				}
				select {
				case text := <-r.final:
					done := time.Now()
					if cfg.Assistant {
						select {
						case first = <-r.firstWords:
						default:
						}
					}
					mu.Lock()
					if !status.IsZero() {
						rep.Status = append(rep.Status, status.Sub(posted))
					}
					if !first.at.IsZero() {
						rep.FirstWords = append(rep.FirstWords, first.at.Sub(posted))
						if cfg.Model != nil {
							if at, ok := cfg.Model.Arrival(first.text); ok {
								rep.FirstWordsAfterModel = append(rep.FirstWordsAfterModel, first.at.Sub(at))
							}
						}
					}
					rep.Replied++
					rep.Replies = append(rep.Replies, text)
					rep.Final = append(rep.Final, done.Sub(posted))
					if !placeholder.IsZero() {
						rep.Placeholder = append(rep.Placeholder, placeholder.Sub(posted))
					}
					mu.Unlock()
				case <-timeout.C:
					mu.Lock()
					rep.TimedOut++
					mu.Unlock()
				}
				timeout.Stop()
				mu.Lock()
				rep.Asked++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	rep.Wall = time.Since(start)
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cfg.Timeout)
	defer cancel()
	if err := adapter.Shutdown(sctx); err != nil {
		firstErr = cmpErr(firstErr, err)
	}
	rep.Calls = fake.Calls()
	sort.Slice(rep.Placeholder, func(i, j int) bool { return rep.Placeholder[i] < rep.Placeholder[j] })
	for _, d := range [][]time.Duration{rep.Final, rep.Status, rep.FirstWords, rep.FirstWordsAfterModel} {
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	}
	return rep, firstErr
}

func cmpErr(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

// mention returns an Events API app_mention callback asking q in channel.
func mention(run string, n int64, channel, user, q, ts string) []byte {
	body, _ := json.Marshal(map[string]any{
		"token": "load", "team_id": "T1", "api_app_id": "A1", "type": "event_callback",
		"event_id": fmt.Sprintf("EvLoad%s%08d", run, n), "event_time": time.Now().Unix(),
		"event": map[string]any{"type": "app_mention", "user": user, "text": "<@" + botUserID + "> " + q,
			"ts": ts, "channel": channel, "event_ts": ts, "team": "T1"},
	})
	return body
}

// threadMessage returns an Events API message.im callback asking q in a new assistant thread
// of DM channel (the thread's root is the message itself).
func threadMessage(run string, n int64, channel, user, q, ts string) []byte {
	body, _ := json.Marshal(map[string]any{
		"token": "load", "team_id": "T1", "api_app_id": "A1", "type": "event_callback",
		"event_id": fmt.Sprintf("EvLoad%s%08d", run, n), "event_time": time.Now().Unix(),
		"event": map[string]any{"type": "message", "user": user, "text": q, "ts": ts, "thread_ts": ts,
			"channel": channel, "channel_type": "im", "event_ts": ts, "team": "T1"},
	})
	return body
}

// post sends a signed Events API request and checks that it was acknowledged.
func post(ctx context.Context, client *http.Client, url string, body []byte, secret string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	Sign(req.Header, body, secret, time.Now())
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("post event: %w", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("post event: status %s", resp.Status)
	}
	return nil
}

// Sign sets in h Slack's v0 signature of body with the signing secret at time at, as Slack
// signs every request it sends an app: for harnesses that play Slack to the adapter.
func Sign(h http.Header, body []byte, secret string, at time.Time) {
	stamp := strconv.FormatInt(at.Unix(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	fmt.Fprintf(mac, "v0:%s:%s", stamp, body)
	h.Set("X-Slack-Request-Timestamp", stamp)
	h.Set("X-Slack-Signature", "v0="+hex.EncodeToString(mac.Sum(nil)))
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// MentionEvent returns an Events API app_mention callback of user asking question in channel
// (a new thread rooted at ts), for Sign and a POST to the adapter's events endpoint.
func MentionEvent(eventID, channel, user, question, ts string) []byte {
	body, _ := json.Marshal(map[string]any{
		"token": "tour", "team_id": "T1", "api_app_id": "A1", "type": "event_callback", "event_id": eventID,
		"event_time": time.Now().Unix(),
		"event": map[string]any{"type": "app_mention", "user": user, "text": "<@" + botUserID + "> " + question,
			"ts": ts, "channel": channel, "event_ts": ts, "team": "T1"},
	})
	return body
}
