package gdrive_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// fakeChannel is a push channel registered with changes.watch.
type fakeChannel struct {
	ID, ResourceID, Address, Token string
	Expiration                     int64 // Unix ms
	stopped                        bool
	messages                       int
}

// watch implements changes.watch: it records the channel, sends the "sync" message Drive sends
// when a channel opens, and returns the channel with its resource id and expiration.
func (f *fakeDrive) watch(w http.ResponseWriter, r *http.Request) {
	var ch struct {
		ID         string `json:"id"`
		Type       string `json:"type"`
		Address    string `json:"address"`
		Token      string `json:"token"`
		Expiration string `json:"expiration"`
	}
	if err := json.NewDecoder(r.Body).Decode(&ch); err != nil || ch.Type != "web_hook" || ch.ID == "" || r.URL.Query().Get("pageToken") == "" {
		writeError(w, http.StatusBadRequest, "invalid", "bad channel")
		return
	}
	exp, _ := strconv.ParseInt(ch.Expiration, 10, 64)
	if limit := time.Now().Add(7 * 24 * time.Hour).UnixMilli(); exp == 0 || exp > limit {
		exp = limit
	}
	f.mu.Lock()
	c := fakeChannel{ID: ch.ID, ResourceID: "res-" + ch.ID, Address: ch.Address, Token: ch.Token, Expiration: exp}
	f.channels = append(f.channels, c)
	f.sendLocked(&f.channels[len(f.channels)-1], "sync")
	f.mu.Unlock()
	writeJSON(w, map[string]any{"kind": "api#channel", "id": c.ID, "resourceId": c.ResourceID, "expiration": strconv.FormatInt(exp, 10)})
}

// stopChannel implements channels.stop.
func (f *fakeDrive) stopChannel(w http.ResponseWriter, r *http.Request) {
	var ch struct {
		ID         string `json:"id"`
		ResourceID string `json:"resourceId"`
	}
	_ = json.NewDecoder(r.Body).Decode(&ch)
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.channels {
		if f.channels[i].ID == ch.ID && f.channels[i].ResourceID == ch.ResourceID {
			f.channels[i].stopped = true
			w.WriteHeader(http.StatusNoContent)
			return
		}
	}
	writeError(w, http.StatusNotFound, "notFound", "Channel not found")
}

// notifyLocked sends a "change" notification on every live channel. f.mu is held.
func (f *fakeDrive) notifyLocked() {
	for i := range f.channels {
		c := &f.channels[i]
		if !c.stopped && c.Expiration > time.Now().UnixMilli() {
			f.sendLocked(c, "change")
		}
	}
}

// sendLocked POSTs one notification the way Drive does: an empty body and X-Goog-* headers.
func (f *fakeDrive) sendLocked(c *fakeChannel, state string) {
	c.messages++
	req, err := http.NewRequest(http.MethodPost, c.Address, nil)
	if err != nil {
		return
	}
	req.Header.Set("X-Goog-Channel-ID", c.ID)
	req.Header.Set("X-Goog-Channel-Token", c.Token)
	req.Header.Set("X-Goog-Channel-Expiration", time.UnixMilli(c.Expiration).UTC().Format(http.TimeFormat))
	req.Header.Set("X-Goog-Resource-ID", c.ResourceID)
	req.Header.Set("X-Goog-Resource-State", state)
	req.Header.Set("X-Goog-Message-Number", strconv.Itoa(c.messages))
	go func() {
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
}

// liveChannels returns the channels neither stopped nor expired.
func (f *fakeDrive) liveChannels() []fakeChannel {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []fakeChannel
	for _, c := range f.channels {
		if !c.stopped && c.Expiration > time.Now().UnixMilli() {
			out = append(out, c)
		}
	}
	return out
}
