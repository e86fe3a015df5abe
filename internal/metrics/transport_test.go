package metrics

import "testing"

func TestDiscordRouteHidesIDsAndTokens(t *testing.T) {
	t.Parallel()
	for path, want := range map[string]string{
		"/api/v9/webhooks/123/aW50ZXJhY3Rpb246MTIzOnNlY3JldA/messages/@original": "PATCH /webhooks/{id}/{token}/messages/@original",
		"/api/v9/interactions/456/secret-token/callback":                         "PATCH /interactions/{id}/{token}/callback",
		"/api/v9/channels/789/messages":                                          "PATCH /channels/{id}/messages",
	} {
		if got := discordRoute("PATCH", path); got != want {
			t.Errorf("discordRoute(%s) = %q, want %q", path, got, want)
		}
	}
}
