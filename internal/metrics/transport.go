package metrics

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// instrumentedTransport times every request of a chat platform's API client.
type instrumentedTransport struct {
	platform string
	next     http.RoundTripper
	m        *Metrics
}

// InstrumentTransport returns a RoundTripper that sends requests with next (nil:
// http.DefaultTransport) and records their duration by platform, API method and status code.
// The method is the URL's last path segment ("chat.postMessage" for Slack's Web API); for
// "discord" it is the HTTP method and the route with ids and tokens replaced
// ("PATCH /webhooks/{id}/{token}/messages/@original"), so no token reaches a label.
func (m *Metrics) InstrumentTransport(platform string, next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return &instrumentedTransport{platform: platform, next: next, m: m}
}

// RoundTrip implements http.RoundTripper; it returns next's response and error.
func (t *instrumentedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	start := time.Now()
	resp, err := t.next.RoundTrip(req)
	code := "error"
	if err == nil {
		code = strconv.Itoa(resp.StatusCode)
	}
	method := req.URL.Path[strings.LastIndex(req.URL.Path, "/")+1:]
	if t.platform == "discord" {
		method = discordRoute(req.Method, req.URL.Path)
	}
	t.m.platformCalls.WithLabelValues(t.platform, method, code).Observe(time.Since(start).Seconds())
	return resp, err
}

// discordRouteWords are the literal segments of the Discord REST routes; every other segment
// (an id, an interaction or webhook token, an emoji) is replaced.
var discordRouteWords = map[string]bool{
	"applications": true, "commands": true, "guilds": true, "channels": true, "messages": true, "threads": true,
	"members": true, "roles": true, "users": true, "@me": true, "@original": true, "webhooks": true, "interactions": true,
	"callback": true, "typing": true, "gateway": true, "bot": true, "reactions": true, "pins": true, "permissions": true,
	"thread-members": true, "archived": true, "public": true, "private": true, "active": true,
}

// discordRoute returns "METHOD /route" for a Discord REST path, without the /api/vN prefix,
// with numeric ids as {id} and any other unknown segment (tokens) as {token}.
func discordRoute(method, path string) string {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	if len(segs) >= 2 && segs[0] == "api" && strings.HasPrefix(segs[1], "v") {
		segs = segs[2:]
	}
	for i, s := range segs {
		switch {
		case discordRouteWords[s]:
		case s != "" && strings.Trim(s, "0123456789") == "":
			segs[i] = "{id}"
		default:
			segs[i] = "{token}"
		}
	}
	return method + " /" + strings.Join(segs, "/")
}
